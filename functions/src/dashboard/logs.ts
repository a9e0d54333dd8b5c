import * as logger from 'firebase-functions/logger';

/** Every log line of the dashboard capability. Never a token, a key or a secret value. */
export const dashboardLogs = {
  operatorRefused(requestId: string, email: string, projectId: string, why: string): void {
    logger.warn('dashboard operator refused', { requestId, email, projectId, why });
  },
  /** An authorised change request (its outcome is the request's own log line and audit entry). */
  operatorChange(requestId: string, email: string, projectId: string, env: string, method: string): void {
    logger.info('dashboard operator change', { requestId, email, projectId, env, method });
  },
};
