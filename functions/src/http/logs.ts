import * as logger from 'firebase-functions/logger';

/**
 * Every log line the request pipeline writes, as a named function. Structured through
 * firebase-functions/logger; never includes a key, a token or a body.
 */
export const logs = {
  requestRejected(requestId: string, method: string, path: string, status: number, code: string, detail?: string): void {
    logger.warn('request rejected', { requestId, method, path, status, code, detail });
  },
  internalError(requestId: string, method: string, path: string, detail: string, stack?: string): void {
    logger.error('internal error', { requestId, method, path, detail, stack });
  },
  rateLimiterFailedOpen(projectId: string, env: string, bucket: string, detail: string): void {
    logger.warn('rate limiter storage unavailable; failing open', { projectId, env, bucket, detail });
  },
  heartbeatWriteFailed(requestId: string, detail: string): void {
    logger.warn('heartbeat write failed (best effort)', { requestId, detail });
  },
  originLearned(requestId: string, appId: string, origins: string[]): void {
    logger.info('web app learned its first origin', { requestId, appId, origins });
  },
  started(settings: Record<string, unknown>): void {
    logger.info('tessera started', settings);
  },
  /** Loud on purpose: a deployed service must never run with these. */
  railStandIns(standIns: string[]): void {
    logger.warn(`RAIL STAND-INS ACTIVE — not for production: ${standIns.join('; ')}`, { standIns });
  },
};
