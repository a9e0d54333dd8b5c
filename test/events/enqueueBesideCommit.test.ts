/**
 * An events request sends its identity-resolution task BESIDE its commit (issue 23): one
 * sequential store round trip after the read, and a 202 only when both succeeded. The task may
 * therefore run before its batch is visible: it waits for its own landing's copy (re-reads, then
 * the queue's retries) until a bound, stores it exactly once when it appears, and after the bound
 * acknowledges without storing anything. Either half failing fails the request, and nothing is
 * lost: the client's retry lands again, or the retention sweep enqueues again. A forged payload
 * reaches only the partition it names, and a task of the previous release's shape still stores.
 */
import type { WriteBatch } from 'firebase-admin/firestore';
import { MINUTE } from '../../functions/src/clock';
import { batchDocId, eventDocId } from '../../functions/src/events/model';
import { resolveEventIdentities } from '../../functions/src/events/resolution';
import { LANDING_VISIBLE_WITHIN_MS } from '../../functions/src/events/resolutionTask';
import { STALE_BATCH_AFTER_MS } from '../../functions/src/retention/eventBatchSweep';
import { runRetention } from '../../functions/src/retention/worker';
import { EnvScope } from '../../functions/src/store/scope';
import { RetryLaterError, type EnqueueOptions, type QueueName } from '../../functions/src/tasks/queue';
import { createTestService, seedProject, type SeededProject, type TestService } from '../support/harness';
import { events, postEvents } from './support';

interface HeldTask {
  payload: Record<string, unknown>;
  id: string;
}

/**
 * A service whose identity-resolution enqueues are handed to `onEnqueue` (default: kept in
 * `held`, to be run by the test); other queues run as usual.
 */
function serviceWithTasks(onEnqueue?: (task: HeldTask) => Promise<void>) {
  const service = createTestService({ settings: { exposeRoundTrips: true } });
  const held: HeldTask[] = [];
  const enqueue = service.tasks.enqueue.bind(service.tasks);
  service.tasks.enqueue = async (queue: QueueName, payload: Record<string, unknown>, options: EnqueueOptions) => {
    if (queue !== 'identityResolution') return enqueue(queue, payload, options);
    const task = { payload, id: options.id };
    if (onEnqueue) await onEnqueue(task);
    else held.push(task);
    return 'enqueued';
  };
  return { service, held };
}

/** Holds the next partition commit (the landing's) until `release()`; later commits (the task's) pass. */
function holdNextCommit() {
  const original = EnvScope.prototype.commit;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let holding = true;
  const spy = jest.spyOn(EnvScope.prototype, 'commit').mockImplementation(async function (this: EnvScope, batch: WriteBatch) {
    if (holding) {
      holding = false;
      await released;
    }
    return original.call(this, batch);
  });
  return { release, restore: () => spy.mockRestore() };
}

const batchesOf = (service: TestService, project: SeededProject) => service.deps.db.collection(`projects/${project.projectId}/envs/test/eventBatches`);
const storedIds = async (service: TestService, project: SeededProject, env: 'test' | 'live' = 'test') =>
  (await service.deps.db.collection(`projects/${project.projectId}/envs/${env}/events`).get()).docs.map((doc) => doc.id).sort();
const docIds = (prefix: string, count: number) => events(count, prefix).map((e) => eventDocId(e.eventId as string)).sort();
/** Each stored event document's last write: unchanged when a task run writes nothing again. */
const updateTimes = async (service: TestService, project: SeededProject) =>
  Object.fromEntries((await service.deps.db.collection(`projects/${project.projectId}/envs/test/events`).get()).docs.map((doc) => [doc.id, `${doc.updateTime.seconds}.${doc.updateTime.nanoseconds}`]));
const run = (service: TestService, task: HeldTask) => resolveEventIdentities(task.payload, service.deps);

describe('the request path', () => {
  /**
   * Store and queue calls of one request as intervals; how many sequential steps they take: calls
   * that overlap (sent before the other answered) are one step.
   */
  function sequentialSteps(intervals: { sent: number; answered: number }[]): number {
    const sorted = [...intervals].sort((a, b) => a.sent - b.sent);
    let steps = 0;
    let answeredBy = -1;
    for (const { sent, answered } of sorted) {
      if (sent >= answeredBy) steps += 1;
      answeredBy = Math.max(answeredBy, answered);
    }
    return steps;
  }

  it('after its one read, sends the commit and the enqueue together: one sequential round trip (was two), two store round trips', async () => {
    let tick = 0;
    const calls: { name: string; sent: number; answered: number }[] = [];
    const timed = async <T>(name: string, call: () => Promise<T>): Promise<T> => {
      const entry = { name, sent: tick++, answered: Number.POSITIVE_INFINITY };
      calls.push(entry);
      try {
        return await call();
      } finally {
        entry.answered = tick++;
      }
    };
    const { service } = serviceWithTasks(async () => undefined);
    const project = await seedProject(service);
    expect((await postEvents(service, project, { events: events(1, 'steps-warm') })).status).toBe(202); // key cached, bucket leased

    const read = EnvScope.prototype.getAllTogether;
    const commit = EnvScope.prototype.commit;
    const enqueue = service.tasks.enqueue;
    const spies = [
      jest.spyOn(EnvScope.prototype, 'getAllTogether').mockImplementation(function (this: EnvScope, ...refs) {
        return timed('read', () => read.apply(this, refs));
      }),
      jest.spyOn(EnvScope.prototype, 'commit').mockImplementation(function (this: EnvScope, batch: WriteBatch) {
        return timed('commit', () => commit.call(this, batch));
      }),
    ];
    service.tasks.enqueue = (queue, payload, options) => timed('enqueue', () => enqueue(queue, payload, options));
    let res;
    try {
      res = await postEvents(service, project, { events: events(100, 'steps') });
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(res.status).toBe(202);
    expect(res.headers['x-tessera-round-trips']).toBe('2');
    expect(calls.map((call) => call.name)).toEqual(['read', 'commit', 'enqueue']);
    const [readCall, ...afterRead] = calls;
    expect(afterRead.every((call) => call.sent > readCall.answered)).toBe(true);
    // The enqueue is sent while the commit is in flight, and the request answers after both.
    expect(sequentialSteps(afterRead)).toBe(1);
    expect(sequentialSteps(calls)).toBe(2);
  });

  it('a commit that fails with its task enqueued answers 5xx; the client’s retry is stored exactly once; the first task stores nothing and ends after its bound', async () => {
    const { service, held } = serviceWithTasks();
    const project = await seedProject(service);
    const body = { events: events(3, 'commit-fails') };
    const failing = jest.spyOn(EnvScope.prototype, 'commit').mockRejectedValueOnce(new Error('store unavailable'));
    let failed;
    try {
      failed = await postEvents(service, project, body);
    } finally {
      failing.mockRestore();
    }
    expect(failed.status).toBe(500);
    expect(failed.body.error.code).toBe('internal_error');
    expect(held).toHaveLength(1); // sent beside the commit, before it failed
    expect((await batchesOf(service, project).get()).size).toBe(0);
    const [orphan] = held.splice(0);
    expect(orphan.payload.requestIds).toEqual([failed.headers['x-request-id']]);

    // Within its bound the task cannot tell a failed commit from a slow one: it asks to be retried and stores nothing.
    await expect(run(service, orphan)).rejects.toThrow(RetryLaterError);

    const retried = await postEvents(service, project, body);
    expect([retried.status, retried.body.received]).toEqual([202, 3]);
    const [retryTask] = held.splice(0);
    // The first task, run again now, finds the retry's copy, not its own: still nothing stored by it.
    await expect(run(service, orphan)).rejects.toThrow(RetryLaterError);
    expect(await storedIds(service, project)).toEqual([]);

    await run(service, retryTask);
    expect(await storedIds(service, project)).toEqual(docIds('commit-fails', 3));
    expect((await batchesOf(service, project).get()).size).toBe(0);

    const stored = await updateTimes(service, project);
    service.clock.advance(LANDING_VISIBLE_WITHIN_MS);
    await expect(run(service, orphan)).resolves.toBeUndefined(); // acknowledged: no commit of its landing can appear now
    await expect(run(service, retryTask)).resolves.toBeUndefined();
    expect(await updateTimes(service, project)).toEqual(stored); // nothing written again
  });

  it('an enqueue that fails answers 5xx with the batch landed; nothing is lost: the retry or, without one, the sweep stores it', async () => {
    let failing = true;
    const { service, held } = serviceWithTasks(async (task) => {
      if (failing) throw new Error('Cloud Tasks unavailable');
      held.push(task);
    });
    const project = await seedProject(service);
    const failed = await postEvents(service, project, { events: events(2, 'enqueue-fails') });
    expect(failed.status).toBe(500);
    expect((await batchesOf(service, project).get()).size).toBe(1); // committed beside the failed enqueue

    failing = false;
    service.clock.advance(STALE_BATCH_AFTER_MS + MINUTE);
    await runRetention(service.deps);
    const ours = held.filter((task) => task.payload.projectId === project.projectId);
    expect(ours).toHaveLength(1);
    expect(ours[0].payload.requestIds).toBeUndefined(); // the sweep's task waits for no landing
    for (const task of ours) await run(service, task);
    expect(await storedIds(service, project)).toEqual(docIds('enqueue-fails', 2));
    expect((await batchesOf(service, project).get()).size).toBe(0);
  });
});

describe('a task that runs before its batch is visible', () => {
  it('re-reads while the landing is fresh and stores the batch once its commit is visible, exactly once', async () => {
    const attempts: Promise<void>[] = [];
    let service!: TestService;
    ({ service } = serviceWithTasks(async (task) => {
      attempts.push(run(service, task)); // delivered at once, while the commit is held
    }));
    const project = await seedProject(service);
    const gate = holdNextCommit();
    let res;
    try {
      const answer = postEvents(service, project, { events: events(4, 'early') }).then((sent) => sent); // sent now (supertest sends on then)
      while (attempts.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      await new Promise((resolve) => setTimeout(resolve, 30)); // the task has read and found nothing yet
      expect(await storedIds(service, project)).toEqual([]);
      gate.release();
      res = await answer;
    } finally {
      gate.restore();
    }
    expect(res.status).toBe(202);
    await Promise.all(attempts); // the same attempt, re-reading, stored it
    expect(await storedIds(service, project)).toEqual(docIds('early', 4));
    expect((await batchesOf(service, project).get()).size).toBe(0);
  });

  it('asks the queue to retry when the commit is still not visible, and its retry stores the batch exactly once', async () => {
    const firstAttempts: Promise<unknown>[] = [];
    const delivered: HeldTask[] = [];
    let service!: TestService;
    ({ service } = serviceWithTasks(async (task) => {
      delivered.push(task);
      firstAttempts.push(run(service, task).then(() => 'stored', (err: unknown) => err));
      await firstAttempts[0]; // the enqueue answers only after this attempt: the commit is held until then
    }));
    const project = await seedProject(service);
    const gate = holdNextCommit();
    let res;
    try {
      const answer = postEvents(service, project, { events: events(3, 'retried') }).then((sent) => sent);
      while (firstAttempts.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await firstAttempts[0]).toBeInstanceOf(RetryLaterError);
      expect(await storedIds(service, project)).toEqual([]);
      gate.release();
      res = await answer;
    } finally {
      gate.restore();
    }
    expect(res.status).toBe(202);
    await run(service, delivered[0]); // the queue's retry
    expect(await storedIds(service, project)).toEqual(docIds('retried', 3));
    const stored = await updateTimes(service, project);
    service.clock.advance(LANDING_VISIBLE_WITHIN_MS);
    await run(service, delivered[0]); // once more past the bound: nothing of it is left, nothing changes
    expect(await updateTimes(service, project)).toEqual(stored);
  });

  it('whose batch never commits is acknowledged after the bound, storing nothing', async () => {
    const { service } = serviceWithTasks();
    const project = await seedProject(service);
    const never = batchDocId(docIds('never', 2));
    const task = { id: 'never', payload: { projectId: project.projectId, env: 'test', batchDocIds: [never], requestIds: ['req_never'], sentAt: service.clock.now() } };
    service.clock.advance(LANDING_VISIBLE_WITHIN_MS - 1);
    await expect(run(service, task)).rejects.toThrow(RetryLaterError);
    service.clock.advance(1);
    await expect(run(service, task)).resolves.toBeUndefined();
    expect(await storedIds(service, project)).toEqual([]);
    expect((await batchesOf(service, project).get()).size).toBe(0);
  });
});

describe('payloads', () => {
  it('a forged payload naming another partition’s batch stores nothing there, nor in the partition it names', async () => {
    const { service, held } = serviceWithTasks();
    const [victim, attacker] = [await seedProject(service), await seedProject(service)];
    const landed = await postEvents(service, victim, { events: events(2, 'victim') });
    expect(landed.status).toBe(202);
    const [real] = held.splice(0);
    const [batch] = real.payload.batchDocIds as string[];
    const sentAt = real.payload.sentAt as number;

    service.clock.advance(LANDING_VISIBLE_WITHIN_MS); // past the bound: a forged task runs to its end at once
    for (const forged of [
      { ...real.payload, projectId: attacker.projectId },
      { ...real.payload, env: 'live' },
      { projectId: attacker.projectId, env: 'test', batchDocIds: [batch] },
      { projectId: attacker.projectId, env: 'test', batchDocIds: [batch], requestIds: real.payload.requestIds, sentAt },
    ]) {
      await run(service, { id: 'forged', payload: forged });
    }
    expect(await storedIds(service, attacker)).toEqual([]);
    expect(await storedIds(service, victim, 'live')).toEqual([]);
    expect(await storedIds(service, victim)).toEqual([]);
    expect((await batchesOf(service, victim).get()).docs.map((doc) => doc.id)).toEqual([batch]); // still the victim's, pending

    await run(service, real);
    expect(await storedIds(service, victim)).toEqual(docIds('victim', 2));
    expect(await storedIds(service, attacker)).toEqual([]);
  });

  it('a task of the previous release’s shape (batch ids only, enqueued after the commit) still stores its batches', async () => {
    const { service, held } = serviceWithTasks();
    const project = await seedProject(service);
    await postEvents(service, project, { events: events(2, 'rollout') });
    const [current] = held.splice(0);
    const previous = { projectId: current.payload.projectId, env: current.payload.env, batchDocIds: current.payload.batchDocIds };
    await run(service, { id: 'previous', payload: previous });
    expect(await storedIds(service, project)).toEqual(docIds('rollout', 2));
    expect((await batchesOf(service, project).get()).size).toBe(0);
  });
});
