/**
 * Measuring harness (not a suite: `*.harness.ts` is outside jest's testMatch and never runs in
 * `npm test`): the `POST /v1/events` request path alone, on the bench's batch
 * (fixtures/eventBatch.ts). The service (every route, no response-schema check, as deployed)
 * listens on a loopback port; one client sends the same pre-serialised body over one keep-alive
 * connection, one request at a time, and the process's CPU is read around each request (the
 * client's share is the same for any code under test, so paired runs compare the server's);
 * HARNESS_CONCURRENCY=n: n clients back to back instead, CPU over the run per request.
 * The identity-resolution tasks are counted and held, never run: `HARNESS_ENQUEUE=cloud` enqueues
 * them through the production adapter into a Cloud Tasks stand-in in a child process instead
 * (bench/lib: run `npx tsc -p bench` first). Prints CPU ms per request, store round trips and
 * tasks per request. Asserts nothing about time.
 *
 *   npx jest --runInBand --testMatch '<rootDir>/test/events/requestCpu.harness.ts' test/events/requestCpu.harness.ts
 *
 * HARNESS_REQUESTS (default 300), HARNESS_PROFILE=file.cpuprofile (the measured requests only).
 */
import { writeFileSync } from 'node:fs';
import { Agent, request as httpRequest, type Server } from 'node:http';
import { startProfiler } from '../../fixtures/inProcessProfiler';
import { createDeps } from '../../functions/src/app/deps';
import { ALL_ROUTES } from '../../functions/src/app/groups';
import { createServiceApp } from '../../functions/src/app/serviceApp';
import { CloudTasksQueue } from '../../functions/src/tasks/cloudTasksQueue';
import type { TaskQueue } from '../../functions/src/tasks/queue';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { benchEventBatch } from '../../fixtures/eventBatch';
import { ManualClock } from '../support/manualClock';
import { lockHeaders, seedProject, type TestService } from '../support/harness';

const REQUESTS = Number(process.env.HARNESS_REQUESTS ?? 300);
const CONCURRENCY = Number(process.env.HARNESS_CONCURRENCY ?? 1);
const WARM_UP = 30;

/** The stand-in reports its tasks over IPC: give the last messages a moment to arrive. */
async function waitForTasks(done: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
}


it(`sends ${REQUESTS} 100-event batches and reports the request path's cost`, async () => {
  let tasksGiven = 0;
  let enqueue: TaskQueue;
  const servers: Server[] = [];
  let standInProcess: ChildProcess | null = null;
  if (process.env.HARNESS_ENQUEUE === 'cloud') {
    // The stand-in answers from another process (as the bench's task worker does): only the
    // enqueue's client side is this process's CPU. It counts the tasks it is given.
    const launcher = `require(${JSON.stringify(join(__dirname, '../../bench/lib/fixtures/cloudTasksStandIn.js'))}).startCloudTasksStandIn(async () => { process.send('task'); return 'enqueued'; }).then(({ host }) => process.send(host));`;
    standInProcess = spawn(process.execPath, ['-e', launcher], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const host = await new Promise<string>((resolve) => standInProcess!.once('message', (message) => resolve(String(message))));
    standInProcess.on('message', (message) => {
      if (message === 'task') tasksGiven += 1;
    });
    process.env.CLOUD_TASKS_EMULATOR_HOST = host;
    enqueue = new CloudTasksQueue('us-central1');
  } else {
    enqueue = {
      enqueue: async () => {
        tasksGiven += 1;
        return 'enqueued';
      },
    };
  }
  const clock = new ManualClock(Date.now());
  // As the bench's unmetered server: the limiter grants every token, so every batch lands whole.
  const deps = createDeps({ clock, tasks: enqueue, bucketStore: { lease: async (_id, _spec, want) => want }, settings: { exposeRoundTrips: true } });
  const app = createServiceApp(ALL_ROUTES, deps, {});
  const project = await seedProject({ deps, app, clock } as unknown as TestService);
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  servers.push(server);
  const port = (server.address() as { port: number }).port;
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const body = Buffer.from(JSON.stringify(benchEventBatch()));
  const headers = { 'content-type': 'application/json', 'content-length': String(body.length), authorization: `Bearer ${project.web.test.secret}`, ...lockHeaders('web'), 'x-harness': '1' };
  const send = () =>
    new Promise<{ status: number; roundTrips: number }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/v1/events', headers, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, roundTrips: Number(res.headers['x-tessera-round-trips'] ?? NaN) }));
      });
      req.on('error', reject);
      req.end(body);
    });

  for (let i = 0; i < WARM_UP; i++) {
    clock.advance(1_000);
    expect((await send()).status).toBe(202);
  }
  await waitForTasks(() => tasksGiven >= WARM_UP);
  const given = tasksGiven;
  const cpuMs: number[] = [];
  let roundTrips = 0;
  const profiler = process.env.HARNESS_PROFILE ? await startProfiler() : null;
  // CONCURRENCY clients back to back (the bench's saturation shape when > 1): CPU per request is
  // the process's CPU over the whole run divided by the requests; with one client, per request.
  const started = process.cpuUsage();
  let sent = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (sent < REQUESTS) {
        sent += 1;
        clock.advance(1_000);
        const before = process.cpuUsage();
        const answer = await send();
        const used = process.cpuUsage(before);
        expect(answer.status).toBe(202);
        roundTrips += answer.roundTrips;
        cpuMs.push((used.user + used.system) / 1000);
      }
    }),
  );
  const whole = process.cpuUsage(started);
  if (profiler) writeFileSync(process.env.HARNESS_PROFILE as string, JSON.stringify(await profiler.stop()));
  await waitForTasks(() => tasksGiven > given);
  agent.destroy();
  standInProcess?.kill();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));

  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const sorted = [...cpuMs].sort((a, b) => a - b);
  const report = {
    requests: REQUESTS,
    concurrency: CONCURRENCY,
    cpuMsPerRequestOverTheRun: +((whole.user + whole.system) / 1000 / REQUESTS).toFixed(2),
    enqueue: process.env.HARNESS_ENQUEUE === 'cloud' ? 'cloud tasks adapter → stand-in' : 'held',
    cpuMsPerRequestOneByOne: CONCURRENCY > 1 ? undefined : { mean: +mean(cpuMs).toFixed(2), median: +sorted[Math.floor(sorted.length / 2)].toFixed(2), min: +sorted[0].toFixed(2) },
    roundTripsPerRequest: roundTrips / REQUESTS,
    tasksPerRequest: (tasksGiven - given) / REQUESTS,
  };
  process.stderr.write(`REQUEST HARNESS ${JSON.stringify(report)}\n`);
}, 600_000);
