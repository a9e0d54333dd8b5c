import type { BackgroundDeps } from '../tasks/background';
import { sweepLostErasures, type ErasureSweepReport } from './erasureSweep';
import { sweepStaleEventBatches, type EventBatchSweepReport } from './eventBatchSweep';
import { retentionLogs } from './logs';

/**
 * The scheduled retention worker: what Firestore TTL policies cannot do. TTL removes expired
 * audit entries, telemetry and idempotency records by their `expiresAt`; this worker finishes
 * erasures whose task was lost, and re-enqueues event batches whose identity-resolution task was. Each job is idempotent, so overlapping or repeated runs are safe.
 */
export { RETENTION_SCHEDULE } from './schedule';

export interface RetentionReport {
  erasures: ErasureSweepReport;
  eventBatches: EventBatchSweepReport;
}

export async function runRetention(deps: BackgroundDeps): Promise<RetentionReport> {
  const report: RetentionReport = { erasures: await sweepLostErasures(deps), eventBatches: await sweepStaleEventBatches(deps) };
  retentionLogs.runCompleted({ ...report });
  return report;
}
