import * as logger from 'firebase-functions/logger';

/** The source-map capability's log lines. Never includes a key or a map's content. */
export const sourcemapLogs = {
  batchStored(requestId: string, projectId: string, env: string, release: string, counts: { uploaded: number; skipped: number; errors: number }): void {
    logger.info('source-map batch stored', { requestId, projectId, env, release, ...counts });
  },
  mapUnreadable(projectId: string, env: string, release: string, fileUrlHash: string, detail: string): void {
    logger.error('stored source map unreadable', { projectId, env, release, fileUrlHash, detail });
  },
  replacedChunksNotDeleted(projectId: string, env: string, release: string, detail: string): void {
    logger.warn('replaced source-map chunks not deleted (orphaned, unreferenced)', { projectId, env, release, detail });
  },
};
