import * as logger from 'firebase-functions/logger';

/** Every log line of the dashboard capability. Never a token, a key or a secret value. */
export const dashboardLogs = {
  operatorRefused(requestId: string, email: string, projectId: string, why: string): void {
    logger.warn('dashboard operator refused', { requestId, email, projectId, why });
  },
  operatorAction(requestId: string, email: string, projectId: string, env: string, action: string): void {
    logger.info('dashboard operator action', { requestId, email, projectId, env, action });
  },
};
