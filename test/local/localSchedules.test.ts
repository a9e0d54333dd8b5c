/**
 * `npm start`'s scheduler (local/localSchedules.ts): every deployed scheduled worker runs on its
 * interval, never two runs of one worker at once, a failed run is logged and the next interval
 * runs again, and stop waits for a run in progress only up to its grace.
 */
import { localScheduleLogs, startLocalSchedules } from '../../functions/src/local/localSchedules';
import { WORKER_NAMES, type WorkerName } from '../../functions/src/app/workers/scheduled';
import type { RootDeps } from '../../functions/src/app/deps';

const NO_DEPS = {} as RootDeps; // `run` is injected: the workers' own code is tested in test/local/workers.test.ts
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const waitUntil = async (done: () => boolean) => {
  while (!done()) await sleep(5);
};

/** A run per call that finishes when the test says so. */
function controlledRuns() {
  const calls: WorkerName[] = [];
  const finish: (() => void)[] = [];
  const run = (worker: WorkerName) => {
    calls.push(worker);
    return new Promise<void>((resolve) => finish.push(resolve));
  };
  return { calls, run, finishAll: () => finish.splice(0).forEach((resolve) => resolve()) };
}

const intervals = (ms: number): Record<WorkerName, number> => Object.fromEntries(WORKER_NAMES.map((w) => [w, ms])) as Record<WorkerName, number>;

it('runs every scheduled worker, and never a second run of one while its first is running', async () => {
  const runs = controlledRuns();
  const schedules = startLocalSchedules(NO_DEPS, intervals(10), runs.run);
  await waitUntil(() => runs.calls.length >= WORKER_NAMES.length);
  await sleep(60); // several intervals pass while every first run is still going
  expect([...runs.calls].sort()).toEqual([...WORKER_NAMES].sort());
  runs.finishAll();
  await waitUntil(() => runs.calls.length >= 2 * WORKER_NAMES.length);
  runs.finishAll();
  await schedules.stop(100);
});

it('logs a failed run with the worker it was, and runs it again on the next interval', async () => {
  const logged = jest.spyOn(localScheduleLogs, 'runFailed').mockImplementation(() => undefined);
  let attempts = 0;
  const schedules = startLocalSchedules(NO_DEPS, { ...intervals(60_000), rollups: 10 }, async (worker) => {
    attempts += 1;
    if (attempts === 1) throw new Error(`boom in ${worker}`);
  });
  await waitUntil(() => attempts >= 2);
  await schedules.stop(100);
  expect(logged).toHaveBeenCalledWith('rollups', 'boom in rollups');
  logged.mockRestore();
});

it('stops its timers, and waits for a run in progress at most its grace', async () => {
  const runs = controlledRuns();
  const schedules = startLocalSchedules(NO_DEPS, intervals(10), runs.run);
  await waitUntil(() => runs.calls.length >= 1);
  await schedules.stop(50); // returns at the grace: the runs never finish by themselves
  const callsAtStop = runs.calls.length;
  runs.finishAll();
  await sleep(60);
  expect(runs.calls.length).toBe(callsAtStop);
});
