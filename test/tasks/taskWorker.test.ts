/**
 * The background work as deployed, for the bench (issue 23): requests enqueue through the
 * production adapter (CloudTasksQueue → firebase-admin → HTTP) into a Cloud Tasks stand-in
 * (fixtures/cloudTasksStandIn.ts) in front of an in-process queue in another process
 * (bench/taskWorker.ts), which runs the service's own handler table with each queue's deployed
 * rate limits. Held here: the stand-in reads exactly what firebase-admin sends and refuses the
 * rest, an events batch posted to an API whose queue is the production adapter is stored by the
 * real resolution handler behind the stand-in, the worker file wires no handlers of its own,
 * and how many tasks of a queue run at once (beside requests, and in a tasks-only process).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Server } from 'node:http';
import supertest from 'supertest';
import { parseCreateTask, startCloudTasksStandIn, type CreateTask } from '../../fixtures/cloudTasksStandIn';
import { createDeps } from '../../functions/src/app/deps';
import { ALL_ROUTES } from '../../functions/src/app/groups';
import { createServiceApp } from '../../functions/src/app/serviceApp';
import { CloudTasksQueue, QUEUE_FUNCTIONS } from '../../functions/src/tasks/cloudTasksQueue';
import { concurrencyLimit, InProcessTaskQueue } from '../../functions/src/tasks/inProcessQueue';
import { QUEUE_CONFIGS, QUEUE_NAMES, type QueueName } from '../../functions/src/tasks/queue';
import { checkResponse } from '../support/responseCheck';
import { createTestService, lockHeaders, seedProject } from '../support/harness';
import { events, storedEvents } from '../events/support';

const PATH = '/projects/demo-p/locations/us-central1/queues/identityResolutionTask/tasks';
const NOW = 1_800_000_000_000;
const body = (task: unknown) => JSON.stringify({ task });
const encoded = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

describe('parseCreateTask: what firebase-admin sends, and nothing else', () => {
  it('reads the queue, the task id, the payload and the delay', () => {
    const parsed = parseCreateTask(
      'POST',
      PATH,
      body({ name: `${PATH.slice(1)}/landing-1`, scheduleTime: new Date(NOW + 30_000).toISOString(), httpRequest: { url: '', body: encoded({ data: { batchIds: ['b_1'] } }) } }),
      NOW,
    );
    expect(parsed).toEqual({ task: { queueId: 'identityResolutionTask', id: 'landing-1', payload: { batchIds: ['b_1'] }, delaySeconds: 30 } });
    expect(parseCreateTask('POST', PATH, body({ httpRequest: { body: encoded({ data: {} }) } }), NOW)).toEqual({ task: { queueId: 'identityResolutionTask', id: null, payload: {}, delaySeconds: 0 } });
  });

  it.each([
    ['another path', 'POST', '/projects/p/queues/q/tasks', body({}), 404, /no such resource/],
    ['another method', 'GET', PATH, '', 405, /POST/],
    ['a body that is not JSON', 'POST', PATH, '{', 400, /not JSON/],
    ['no task', 'POST', PATH, JSON.stringify({}), 400, /`task` must be an object/],
    ['no request body', 'POST', PATH, body({ httpRequest: {} }), 400, /httpRequest\.body/],
    ['a request body that is not base64 JSON', 'POST', PATH, body({ httpRequest: { body: 'not json' } }), 400, /not base64 JSON/],
    ['no data object', 'POST', PATH, body({ httpRequest: { body: encoded({ data: [1] }) } }), 400, /\{"data"/],
    ['a task name of another queue', 'POST', PATH, body({ name: 'projects/demo-p/locations/us-central1/queues/erasureTask/tasks/x', httpRequest: { body: encoded({ data: {} }) } }), 400, /task\.name/],
    ['an unreadable schedule time', 'POST', PATH, body({ scheduleTime: 'soon', httpRequest: { body: encoded({ data: {} }) } }), 400, /scheduleTime/],
  ])('refuses %s', (_what, method, path, text, status, message) => {
    const parsed = parseCreateTask(method, path, text, NOW);
    expect('refusal' in parsed && parsed.refusal.status).toBe(status);
    expect('refusal' in parsed && parsed.refusal.message).toMatch(message);
  });
});

describe('the production adapter feeding a tasks-only queue over HTTP (the bench’s task worker)', () => {
  const worker = createTestService({ tasks: new InProcessTaskQueue({ tasksOnly: true, backoffMs: () => 0 }) });
  const queueOfFunction = new Map(Object.entries(QUEUE_FUNCTIONS).map(([name, fn]) => [fn, name as QueueName]));
  const given: CreateTask[] = [];
  let standIn: Server;
  let previousHost: string | undefined;

  beforeAll(async () => {
    const started = await startCloudTasksStandIn(async (task) => {
      given.push(task);
      const name = queueOfFunction.get(task.queueId);
      if (!name) return null;
      return worker.tasks.enqueue(name, task.payload, { id: task.id ?? 'anonymous', scheduleDelaySeconds: task.delaySeconds });
    });
    standIn = started.server;
    previousHost = process.env.CLOUD_TASKS_EMULATOR_HOST;
    process.env.CLOUD_TASKS_EMULATOR_HOST = started.host;
  });
  afterAll(async () => {
    if (previousHost === undefined) delete process.env.CLOUD_TASKS_EMULATOR_HOST;
    else process.env.CLOUD_TASKS_EMULATOR_HOST = previousHost;
    await new Promise((resolve) => standIn.close(resolve));
  });

  it('a batch posted to the events API is stored by the service’s own resolution handler in the worker', async () => {
    const project = await seedProject(worker);
    const api = createServiceApp(ALL_ROUTES, createDeps({ clock: worker.clock, tasks: new CloudTasksQueue('us-central1') }), { checkResponse });
    const res = await supertest(api)
      .post('/v1/events')
      .set({ Authorization: `Bearer ${project.ios.test.publishable}`, ...lockHeaders('ios') })
      .send({ events: events(3, 'worker', { anonymousId: 'device-w' }) });
    expect(res.status).toBe(202);
    expect(given.map((task) => task.queueId)).toEqual(['identityResolutionTask']);
    expect(given[0].id).toEqual(expect.any(String));

    const stored = await storedEvents(worker, project.projectId);
    expect(stored.map((e) => e.eventId).sort()).toEqual(['worker-0', 'worker-1', 'worker-2']);
    expect(stored.every((e) => typeof e.serviceCustomerId === 'string' && e.resolvedAt === worker.clock.now())).toBe(true);
  });

  it('a second enqueue with the same id is a duplicate (Cloud Tasks’ 409 through the production adapter)', async () => {
    const queue = new CloudTasksQueue('us-central1');
    // An empty payload is not a resolution task's: the handler drops it (never retried).
    expect(await queue.enqueue('identityResolution', {}, { id: 'same-id' })).toBe('enqueued');
    expect(await queue.enqueue('identityResolution', {}, { id: 'same-id' })).toBe('duplicate');
    expect(given.filter((task) => task.id === 'same-id')).toHaveLength(2);
    await worker.tasks.drain();
  });

  it('a task for a queue the worker does not have is refused (404), never queued', async () => {
    const before = given.length;
    const res = await fetch(`http://${process.env.CLOUD_TASKS_EMULATOR_HOST}/projects/p/locations/l/queues/noSuchTask/tasks`, {
      method: 'POST',
      body: body({ httpRequest: { body: encoded({ data: {} }) } }),
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: 404, status: 'NOT_FOUND', message: 'no such queue: noSuchTask' } });
    expect(given.slice(before).map((task) => task.queueId)).toEqual(['noSuchTask']);
  });
});

describe('the bench’s task worker runs the service’s handler table, no copy of its own', () => {
  const source = readFileSync(join(__dirname, '../../bench/taskWorker.ts'), 'utf8');
  const imports = [...source.matchAll(/(?:from|import\()\s*'([^']+)'/g)].map((m) => m[1]);

  it('builds its queue’s handlers with createDeps (which attaches app/taskHandlers.ts runTask) and attaches none itself', () => {
    expect(imports).toEqual(expect.arrayContaining(['#functions/app/deps', '#functions/tasks/inProcessQueue']));
    expect(source).toMatch(/createDeps\(\{ tasks: queue \}\)/);
    expect(source).toMatch(/new InProcessTaskQueue\(\{ tasksOnly: true \}\)/);
    expect(source).not.toMatch(/\.attach\(/);
  });

  it('imports no capability’s code (handlers live in their folders, reached only through the table)', () => {
    const allowed = ['#functions/app/deps', '#functions/tasks/inProcessQueue', '#functions/tasks/cloudTasksQueue'];
    expect(imports.filter((specifier) => specifier.startsWith('#functions/') && !allowed.includes(specifier))).toEqual([]);
  });
});

describe('how many tasks of a queue run at once', () => {
  it('deployed numbers in a tasks-only process; the beside-requests cap where the process serves requests', () => {
    for (const queue of QUEUE_NAMES) {
      const { rateLimits, besideRequestsMaxConcurrent } = QUEUE_CONFIGS[queue];
      expect(concurrencyLimit(queue, true)).toBe(rateLimits.maxConcurrentDispatches);
      expect(concurrencyLimit(queue, false)).toBe(Math.min(rateLimits.maxConcurrentDispatches, besideRequestsMaxConcurrent ?? Infinity));
    }
    expect(concurrencyLimit('identityResolution', true)).toBe(20);
    expect(concurrencyLimit('identityResolution', false)).toBe(2);
  });

  it.each([
    ['beside requests', false, 2],
    ['tasks only', true, 20],
  ])('a flood of landings never runs more than the limit at once (%s)', async (_where, tasksOnly, limit) => {
    const queue = new InProcessTaskQueue({ tasksOnly });
    let running = 0;
    let peak = 0;
    let done = 0;
    queue.attach(async () => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 20));
      running -= 1;
      done += 1;
    });
    // More than the queue's dispatches per second would allow in a burst: the bucket spaces the rest.
    for (let n = 0; n < 60; n += 1) await queue.enqueue('identityResolution', { n }, { id: `flood-${n}` });
    await queue.drain();
    expect(done).toBe(60);
    expect(peak).toBe(limit);
  });
});
