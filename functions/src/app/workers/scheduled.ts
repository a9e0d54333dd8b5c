import type { RootDeps } from '../deps';
import { RETENTION_SCHEDULE } from '../../retention/schedule';
import { ROLLUP_COMPACTION_SCHEDULE } from '../../store/rollups/compactionSchedule';
import { WEBHOOK_WORKER_SCHEDULE } from '../../webhooks/outboxSchedule';

/**
 * Every scheduled worker, once: its deployed function (index.ts), its schedule, and how to run
 * it in this process. index.ts deploys from it, `npm start` runs it on the same schedules
 * (local/localSchedules.ts), the emulator suite fires it as Cloud Scheduler does, and `tessera
 * workers run <name>` runs one now: a worker added here is everywhere at once.
 */
export const SCHEDULED_WORKERS = {
  /** Entitlement expiries, the relay of lost fan-outs, retired signing secrets (every minute). */
  webhooks: { function: 'webhookWorker', schedule: WEBHOOK_WORKER_SCHEDULE, timeoutSeconds: 120 },
  /** Erasures and landed event batches whose task was lost. */
  retention: { function: 'retentionWorker', schedule: RETENTION_SCHEDULE, timeoutSeconds: 540 },
  /** Folds the report rollups' recent shards into shard 0 (store/rollups/compaction.ts). */
  rollups: { function: 'rollupWorker', schedule: ROLLUP_COMPACTION_SCHEDULE, timeoutSeconds: 540 },
} as const;

export type WorkerName = keyof typeof SCHEDULED_WORKERS;
export const WORKER_NAMES = Object.keys(SCHEDULED_WORKERS) as WorkerName[];

/** Runs one worker's code now, in this process; resolves with its report. Each worker loads only when it runs. */
export async function runScheduledWorker(worker: WorkerName, deps: RootDeps): Promise<unknown> {
  switch (worker) {
    case 'webhooks':
      return (await import('./outboxWorker')).runWebhookWorker(deps);
    case 'retention':
      return (await import('../../retention/worker')).runRetention(deps);
    case 'rollups':
      return (await import('./rollupWorker')).runRollupWorker(deps);
  }
}
