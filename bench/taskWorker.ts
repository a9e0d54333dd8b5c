import { randomUUID } from 'node:crypto';
import { startCloudTasksStandIn, type CreateTask } from '../fixtures/cloudTasksStandIn';
import { wireRails } from './railWiring';
import { answerParent, timedDrain } from './parentChannel';
import type { TaskWorkerReady } from './serverProtocol';

/**
 * The background work as deployed: in its own process, as the task-queue functions run in
 * their own instances, fed over HTTP by the server's production queue adapter (CloudTasksQueue,
 * pointed here by `CLOUD_TASKS_EMULATOR_HOST`). A Cloud Tasks stand-in accepts each task and
 * hands it to an in-process queue applying each queue's deployed rateLimits and retryConfig
 * (`tasksOnly`: QUEUE_CONFIGS as Cloud Tasks applies them). The handlers are the service's own
 * table: createDeps attaches app/taskHandlers.ts `runTask` to the queue, exactly as it does for
 * `npm start` (test/tasks/taskWorkerWiring.test.ts holds this file to that). The parent asks it
 * over IPC to drain, report its CPU time and the tasks it was given, or to set secrets.
 */
async function main(): Promise<void> {
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) console[level] = () => undefined;
  const { createDeps } = await import('#functions/app/deps');
  const { InProcessTaskQueue } = await import('#functions/tasks/inProcessQueue');
  const { QUEUE_FUNCTIONS } = await import('#functions/tasks/cloudTasksQueue');

  const queue = new InProcessTaskQueue({ tasksOnly: true });
  const deps = createDeps({ tasks: queue });
  const queueOfFunction = new Map(Object.entries(QUEUE_FUNCTIONS).map(([name, fn]) => [fn, name as keyof typeof QUEUE_FUNCTIONS]));
  const enqueued: Record<string, number> = {};
  /** Tasks given while dispatch is held (a diagnostic: the requests' latency without their background beside them). */
  let held: { name: keyof typeof QUEUE_FUNCTIONS; task: CreateTask }[] | null = null;
  const give = async (name: keyof typeof QUEUE_FUNCTIONS, task: CreateTask) => {
    const outcome = await queue.enqueue(name, task.payload, { id: task.id ?? randomUUID(), scheduleDelaySeconds: task.delaySeconds });
    if (outcome === 'enqueued') enqueued[name] = (enqueued[name] ?? 0) + 1;
    return outcome;
  };
  const standIn = await startCloudTasksStandIn(async (task) => {
    const name = queueOfFunction.get(task.queueId);
    if (!name) return null;
    if (held) {
      held.push({ name, task });
      return 'enqueued';
    }
    return give(name, task);
  });

  answerParent('worker', async (request) => {
    switch (request.type) {
      case 'drain':
        return timedDrain(() => queue.drain());
      case 'taskShape':
        return { error: 'the task worker has no queue adapter: ask the server' };
      case 'holdDispatch': {
        const release = held ?? [];
        held = request.hold ? [] : null;
        for (const { name, task } of release) await give(name, task);
        return {};
      }
      case 'tasks':
        return { tasks: { ...enqueued } };
      case 'wireRails':
        wireRails(deps, request.wiring);
        return {};
    }
  });
  process.once('SIGTERM', () => process.exit(0));
  process.send!({ type: 'ready', tasksHost: standIn.host } satisfies TaskWorkerReady);
}

main().catch((err) => {
  process.stderr.write(`bench task worker: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
