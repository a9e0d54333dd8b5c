/**
 * Deployed functions only: one HTTPS function per endpoint group, the task-queue functions
 * and the scheduled retention worker. Each function runs the same Express app the local
 * runner mounts.
 */
import { setGlobalOptions } from 'firebase-functions/v2';
import { onRequest, type HttpsOptions } from 'firebase-functions/v2/https';
import { onTaskDispatched } from 'firebase-functions/v2/tasks';
import { onSchedule } from 'firebase-functions/v2/scheduler';
import { createDeps, type Deps } from './app/deps';
import { deployRegion } from './config/region';
import { GROUPS, type GroupName } from './app/groups';
import { createApiApp } from './http/pipeline';
import { RETENTION_SCHEDULE, runRetention } from './retention/worker';
import { CloudTasksQueue } from './tasks/cloudTasksQueue';
import { runTask } from './tasks/handlers';
import { RETRY_POLICY, type QueueName } from './tasks/queue';

const REGION = deployRegion();
setGlobalOptions({ region: REGION, memory: '512MiB', concurrency: 80 });

let deps: Deps | undefined;
/** Built on first use so a cold start pays only for what it serves. */
const getDeps = (): Deps => (deps ??= createDeps({ tasks: new CloudTasksQueue(REGION) }));

function groupFunction(group: GroupName, options: HttpsOptions = {}) {
  let app: ReturnType<typeof createApiApp> | undefined;
  return onRequest({ invoker: 'public', ...options }, (req, res) => {
    app ??= createApiApp(GROUPS[group], getDeps());
    app(req, res);
  });
}

export const platformApi = groupFunction('platform');
export const identityApi = groupFunction('identity');
export const eventsApi = groupFunction('events');
export const purchasesApi = groupFunction('purchases');
// A 1,000-row migration runs its rows sequentially, each with its own transactions.
export const serverApi = groupFunction('server', { timeoutSeconds: 540 });
// 100 source maps per request (up to 30 MiB) are decoded, hashed and compressed in memory:
// few requests per instance, each with room.
export const sourcemapsApi = groupFunction('sourcemaps', { memory: '1GiB', timeoutSeconds: 120, concurrency: 6 });
export const webhooksApi = groupFunction('webhooks');

/** A Cloud Tasks queue function: runs the queue's handler; a throw makes Cloud Tasks retry. */
function taskFunction(queue: QueueName) {
  return onTaskDispatched<Record<string, unknown>>({ retryConfig: { ...RETRY_POLICY } }, async (req) => {
    await runTask(queue, req.data, getDeps());
  });
}

/** Name fixed by tasks/cloudTasksQueue.ts QUEUE_FUNCTIONS. */
export const identityResolutionTask = taskFunction('identityResolution');
export const erasureTask = taskFunction('erasure');

/** The scheduled retention worker: finishes erasures whose task was lost (see retention/README.md). */
export const retentionWorker = onSchedule({ schedule: RETENTION_SCHEDULE, timeoutSeconds: 540 }, async () => {
  await runRetention(getDeps());
});
