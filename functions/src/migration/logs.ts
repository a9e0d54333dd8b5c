import * as logger from 'firebase-functions/logger';

/** Named log lines of bulk migration. Never a row's identifiers, email or traits. */
export const migrationLogs = {
  rowFailed(requestId: string, projectId: string, env: string, rowIndex: number, detail: string): void {
    logger.error('migration row failed', { requestId, projectId, env, rowIndex, detail });
  },
  /** A transaction of new users failed as a whole (nothing written): its rows were run one by one. */
  chunkFailed(requestId: string, projectId: string, env: string, rows: number, detail: string): void {
    logger.warn('migration new-user transaction failed, rows retried one by one', { requestId, projectId, env, rows, detail });
  },
  finished(requestId: string, projectId: string, env: string, counters: Record<string, number>): void {
    logger.info('migration finished', { requestId, projectId, env, ...counters });
  },
};
