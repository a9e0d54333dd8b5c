/**
 * Deployed functions only: one HTTPS function per endpoint group, the task-queue functions
 * and the scheduled workers. Each function runs the same Express app the local
 * runner mounts.
 *
 * Cold start: this file loads only firebase-functions and the names of things. A function's
 * own code (its group's routes, the shared pipeline, firebase-admin) loads on its first
 * invocation, so an instance of one group never pays for another group's modules.
 */
// The provider paths, not 'firebase-functions/v2': its index loads every provider (~300 ms).
import { setGlobalOptions } from 'firebase-functions/v2/options';
import { onRequest, type HttpsOptions } from 'firebase-functions/v2/https';
import { onTaskDispatched } from 'firebase-functions/v2/tasks';
import { onSchedule } from 'firebase-functions/v2/scheduler';
import type { RootDeps } from './app/deps';
import type { Express } from 'express';
import type { GroupName } from './app/groupNames';
import { deployRegion } from './config/region';
import { QUEUE_CONFIGS, type QueueName } from './tasks/queue';
import { runScheduledWorker, SCHEDULED_WORKERS, type WorkerName } from './app/workers/scheduled';

const REGION = deployRegion();
setGlobalOptions({ region: REGION, memory: '512MiB', concurrency: 80 });

let deps: Promise<RootDeps> | undefined;
/** Built on first use so a cold start pays only for what it serves. */
function getDeps(): Promise<RootDeps> {
  deps ??= (async () => {
    const [{ createDeps }, { CloudTasksQueue }] = await Promise.all([import('./app/deps'), import('./tasks/cloudTasksQueue')]);
    return createDeps({ tasks: new CloudTasksQueue(REGION) });
  })();
  return deps;
}

function groupFunction(group: GroupName, options: HttpsOptions = {}) {
  let app: Promise<Express> | undefined;
  return onRequest({ invoker: 'public', ...options }, async (req, res) => {
    app ??= (async () => {
      const [{ GROUP_LOADERS }, { createServiceApp }] = await Promise.all([import('./app/groupLoaders'), import('./app/serviceApp')]);
      const [routes, ready] = await Promise.all([GROUP_LOADERS[group](), getDeps()]);
      return createServiceApp(routes, ready);
    })();
    (await app)(req, res);
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
// The operator dashboard's API (dashboard/): operator sign-in instead of API keys.
export const dashboardApi = groupFunction('dashboard');
export const reportsApi = groupFunction('reports');

/**
 * A Cloud Tasks queue function: runs the queue's handler; a throw makes Cloud Tasks retry. Its
 * retryConfig and rateLimits are the queue's QUEUE_CONFIGS entry, which the in-process queue
 * applies too (tasks/queue.ts).
 */
function taskFunction(queue: QueueName) {
  const { retryConfig, rateLimits } = QUEUE_CONFIGS[queue];
  return onTaskDispatched<Record<string, unknown>>({ retryConfig: { ...retryConfig }, rateLimits: { ...rateLimits } }, async (req) => {
    const [{ runTask }, ready] = await Promise.all([import('./app/taskHandlers'), getDeps()]);
    await runTask(queue, req.data, ready);
  });
}

/** Name fixed by tasks/cloudTasksQueue.ts QUEUE_FUNCTIONS. */
export const identityResolutionTask = taskFunction('identityResolution');
export const erasureTask = taskFunction('erasure');
export const webhookFanoutTask = taskFunction('webhookFanout');
/** One outbound webhook delivery attempt per run; a failed attempt throws and the queue retries it (webhooks/deliver.ts). */
export const webhookDeliveryTask = taskFunction('webhookDelivery');

/**
 * The scheduled workers (app/workers/scheduled.ts lists them with their schedules): retention
 * finishes erasures and event batches whose task was lost (retention/README.md); the webhook
 * worker records entitlement expiries and relays outbox events whose fan-out was lost
 * (webhooks/README.md); the rollup worker compacts report rollups (store/rollups/compaction.ts).
 */
function scheduledWorker(worker: WorkerName) {
  const { schedule, timeoutSeconds } = SCHEDULED_WORKERS[worker];
  return onSchedule({ schedule, timeoutSeconds }, async () => {
    await runScheduledWorker(worker, await getDeps());
  });
}

export const retentionWorker = scheduledWorker('retention');
export const webhookWorker = scheduledWorker('webhooks');
export const rollupWorker = scheduledWorker('rollups');
