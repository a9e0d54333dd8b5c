import * as logger from 'firebase-functions/logger';
import type { RootDeps } from '../app/deps';
import { runScheduledWorker, SCHEDULED_WORKERS, WORKER_NAMES, type WorkerName } from '../app/workers/scheduled';
import { everyMs } from './suite/schedules';

export interface LocalSchedules {
  /** Stops the timers and waits at most `graceMs` for runs in progress (every worker is idempotent: the next start redoes an interrupted run). */
  stop(graceMs?: number): Promise<void>;
}

type RunWorker = (worker: WorkerName) => Promise<unknown>;

/** Log lines of the local scheduler (the workers log their own runs). */
export const localScheduleLogs = {
  runFailed(worker: WorkerName, detail: string): void {
    logger.error('scheduled worker run failed; the next run retries it', { worker, function: SCHEDULED_WORKERS[worker].function, detail });
  },
};

/**
 * `npm start`'s Cloud Scheduler: runs every scheduled worker in this process on its deployed
 * schedule (first run one interval after start, as a newly deployed schedule does), never two
 * runs of one worker at once. `intervals` and `run` are for tests.
 */
export function startLocalSchedules(
  deps: RootDeps,
  intervals: Record<WorkerName, number> = deployedIntervals(),
  run: RunWorker = (worker) => runScheduledWorker(worker, deps),
): LocalSchedules {
  const running = new Map<WorkerName, Promise<unknown>>();
  const timers = WORKER_NAMES.map((worker) => {
    const timer = setInterval(() => {
      if (running.has(worker)) return;
      const run$ = run(worker)
        .catch((err) => localScheduleLogs.runFailed(worker, err instanceof Error ? err.message : String(err)))
        .finally(() => running.delete(worker));
      running.set(worker, run$);
    }, intervals[worker]);
    timer.unref();
    return timer;
  });
  return {
    async stop(graceMs = 1000) {
      for (const timer of timers) clearInterval(timer);
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(running.values()), new Promise((resolve) => (grace = setTimeout(resolve, graceMs)))]);
      clearTimeout(grace);
    },
  };
}

const deployedIntervals = (): Record<WorkerName, number> =>
  Object.fromEntries(WORKER_NAMES.map((worker) => [worker, everyMs(SCHEDULED_WORKERS[worker].schedule)])) as Record<WorkerName, number>;
