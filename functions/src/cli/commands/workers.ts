import { existsSync, readFileSync } from 'node:fs';
import { RUNNING_FILE } from '../../config/paths';
import { triggerWorker } from '../../local/suite/schedules';
import { runScheduledWorker, SCHEDULED_WORKERS, WORKER_NAMES, type WorkerName } from '../../app/workers/scheduled';
import type { RootDeps } from '../../app/deps';
import type { TaskQueue } from '../../tasks/queue';
import type { Command, CommandContext } from '../command';
import { RunNowQueue } from '../operatorTasks';

/**
 * `tessera workers run webhooks|retention|rollups`: runs a scheduled worker now. Against the emulator
 * suite (`npm run emulators`) it makes Cloud Scheduler's call to the functions emulator, so the
 * deployed function runs inside the suite (and the command answers when it is done); against any other store (`npm start`'s emulator, or a real
 * project) the worker runs in this process with the same code, its tasks due now run here
 * (locally) or go to Cloud Tasks (a real project).
 */
interface RunningSuite {
  firestoreEmulatorHost: string;
  gcloudProject: string;
  suite?: { functionsEmulatorHost: string };
}

function runningSuite(): RunningSuite | null {
  if (!existsSync(RUNNING_FILE)) return null;
  const running = JSON.parse(readFileSync(RUNNING_FILE, 'utf8')) as RunningSuite;
  // Only when the CLI talks to that suite's Firestore (an explicit FIRESTORE_EMULATOR_HOST may name another).
  return running.suite && running.firestoreEmulatorHost === process.env.FIRESTORE_EMULATOR_HOST ? running : null;
}

async function runWorker(worker: WorkerName, ctx: CommandContext): Promise<unknown> {
  const suite = runningSuite();
  if (suite?.suite) {
    const run = await triggerWorker(suite.suite.functionsEmulatorHost, suite.gcloudProject, worker);
    return { worker, function: SCHEDULED_WORKERS[worker].function, ran: 'in the emulator suite (its report is in the suite’s output)', emulatorFunction: run.function, status: run.status };
  }
  const { createDeps } = await import('../../app/deps');
  const { runTask } = await import('../../app/taskHandlers');
  let deps: RootDeps;
  let tasks: TaskQueue;
  let local: RunNowQueue | null = null;
  if (process.env.FIRESTORE_EMULATOR_HOST) {
    local = new RunNowQueue((queue, payload) => runTask(queue, payload, deps));
    tasks = local;
  } else {
    const [{ CloudTasksQueue }, { deployRegion }] = await Promise.all([import('../../tasks/cloudTasksQueue'), import('../../config/region')]);
    tasks = new CloudTasksQueue(deployRegion());
  }
  const report = await withLogsOnStderr(async () => {
    deps = { ...createDeps({ tasks, clock: ctx.clock }), db: ctx.db };
    const result = await runScheduledWorker(worker, deps);
    // Tasks the run queued for now (fan-out, deliveries) finish before the command answers.
    if (local) await local.settle();
    return result;
  });
  return { worker, function: SCHEDULED_WORKERS[worker].function, ran: 'in this process', report };
}

export const workerCommands: Command[] = WORKER_NAMES.map((worker) => ({
  name: `workers run ${worker}`,
  summary: `runs the ${worker} worker now (${SCHEDULED_WORKERS[worker].function}; under the emulator suite, inside the suite as Cloud Scheduler calls it)`,
  options: {},
  run: (_values, ctx) => runWorker(worker, ctx),
}));

/** The service's structured log lines go to stderr here: stdout carries only the command's JSON answer. */
async function withLogsOnStderr<T>(run: () => Promise<T>): Promise<T> {
  const write = process.stdout.write;
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  try {
    return await run();
  } finally {
    process.stdout.write = write;
  }
}
