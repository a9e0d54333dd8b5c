/**
 * Measuring harness (not a suite: `*.harness.ts` is outside jest's testMatch and never runs in
 * `npm test`): the identity-resolution task alone, on landings of the bench's shape
 * (bench/scenarios/events.ts: 100 events without ids, a tenth errors, seven devices, sdk and
 * envelope version). Lands TASKS + WARM_UP batches through the real route with their tasks held,
 * then runs the tasks one after another, each under process.cpuUsage and a round-trip counter.
 * Prints CPU ms per task and per landing, documents read, round trips, and per stored event document its values
 * and the index entries firestore.indexes.json gives it. Asserts nothing about time.
 *
 *   npx jest --runInBand --testMatch '<rootDir>/test/events/taskCpu.harness.ts' test/events/taskCpu.harness.ts
 *
 * Written so that the code before packing (git archive of an older commit, with this file and
 * test/support/indexEntries.ts copied in) runs it unchanged, for paired old/new runs (docs/benchmarks.md, "Branch eventstore").
 */
import { writeFileSync } from 'node:fs';
import { startProfiler } from '../../fixtures/inProcessProfiler';
import { resolveEventIdentities } from '../../functions/src/events/resolution';
import { RoundTripCounter, withRoundTripCounter } from '../../functions/src/store/roundTrips';
import { createTestService, lockHeaders, seedProject } from '../support/harness';
import { indexEntries, readIndexConfig, valueCount } from '../support/indexEntries';
import { benchEventBatch } from '../../fixtures/eventBatch';

const TASKS = Number(process.env.HARNESS_TASKS ?? 40);
const WARM_UP = 5;
/**
 * HARNESS_LANDINGS_PER_TASK=k: the held landings' batches run k to a task, as landings committed
 * together share one (events/landingTasks.ts; at most MAX_BATCHES_PER_TASK). Default 1.
 */
const LANDINGS_PER_TASK = Number(process.env.HARNESS_LANDINGS_PER_TASK ?? 1);

function groupedTasks(payloads: Record<string, unknown>[]): Record<string, unknown>[] {
  const tasks: Record<string, unknown>[] = [];
  for (let start = 0; start < payloads.length; start += LANDINGS_PER_TASK) {
    const group = payloads.slice(start, start + LANDINGS_PER_TASK);
    tasks.push({ ...group[0], batchDocIds: group.flatMap((payload) => payload.batchDocIds as string[]) });
  }
  return tasks;
}

it(`runs ${TASKS} identity-resolution tasks of 100 events and reports their cost`, async () => {
  const service = createTestService();
  const held: Record<string, unknown>[] = [];
  const enqueue = service.tasks.enqueue.bind(service.tasks);
  service.tasks.enqueue = async (queue, payload, options) => {
    if (queue !== 'identityResolution') return enqueue(queue, payload, options);
    held.push(payload);
    return 'enqueued';
  };
  const project = await seedProject(service);
  for (let i = 0; i < TASKS + WARM_UP; i++) {
    service.clock.advance(1_000); // the events bucket refills 100 tokens a second: every batch lands whole
    const res = await service
      .request()
      .post('/v1/events')
      .set({ Authorization: `Bearer ${project.web.test.secret}`, ...lockHeaders('web') })
      .send(benchEventBatch());
    expect(res.status).toBe(202);
  }
  expect(held).toHaveLength(TASKS + WARM_UP);

  for (const payload of held.splice(0, WARM_UP)) await resolveEventIdentities(payload, service.deps);
  const cpuMs: number[] = [];
  const counter = new RoundTripCounter();
  const profiler = process.env.HARNESS_PROFILE ? await startProfiler() : null;
  for (const payload of groupedTasks(held.splice(0))) {
    const before = process.cpuUsage();
    await withRoundTripCounter(counter, () => resolveEventIdentities(payload, service.deps));
    const used = process.cpuUsage(before);
    cpuMs.push((used.user + used.system) / 1000);
  }
  if (profiler) writeFileSync(process.env.HARNESS_PROFILE as string, JSON.stringify(await profiler.stop()));

  const stored = await service.deps.db.collection(`projects/${project.projectId}/envs/test/events`).get();
  expect(stored.size).toBe((TASKS + WARM_UP) * 100);
  const config = readIndexConfig();
  const docs = stored.docs.map((d) => d.data());
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const sorted = [...cpuMs].sort((a, b) => a - b);
  const report = {
    landings: TASKS,
    landingsPerTask: LANDINGS_PER_TASK,
    cpuMsPerTask: { mean: +mean(cpuMs).toFixed(1), median: +sorted[Math.floor(sorted.length / 2)].toFixed(1), min: +sorted[0].toFixed(1) },
    cpuMsPerLanding: +(mean(cpuMs) / LANDINGS_PER_TASK).toFixed(1),
    documentsReadPerLanding: counter.documents / TASKS,
    roundTripsPerLanding: counter.count / TASKS,
    perEventDocument: {
      topLevelFields: mean(docs.map((d) => Object.keys(d).length)),
      values: mean(docs.map((d) => valueCount(d) - 1)),
      indexEntries: mean(docs.map((d) => indexEntries(d, config, 'events'))),
      bytesOfJson: Math.round(mean(docs.map((d) => JSON.stringify(d).length))),
    },
  };
  // Straight to stderr: jest's console (its call-site capture) stays out of the measured run.
  process.stderr.write(`TASK HARNESS ${JSON.stringify(report)}\n`);
}, 600_000);
