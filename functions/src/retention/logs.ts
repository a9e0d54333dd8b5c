import * as logger from 'firebase-functions/logger';

/** Log lines of the retention worker. */
export const retentionLogs = {
  erasureFailed(projectId: string, env: string, customerId: string, detail: string): void {
    logger.error('retention: erasure failed; retried on the next run', { projectId, env, customerId, detail });
  },
  eventBatchSweepFailed(projectId: string, env: string, detail: string): void {
    logger.error('retention: could not enqueue identity resolution for stale event batches; retried on the next run', { projectId, env, detail });
  },
  runCompleted(report: Record<string, unknown>): void {
    logger.info('retention run completed', report);
  },
};
