import * as logger from 'firebase-functions/logger';

/** Log lines of the rails. Never a payload, a signature, a token or a secret. */
export const railLogs = {
  notificationDecided(rail: string, projectId: string, env: string, eventId: string, decision: string, reason: string, duplicate: boolean): void {
    logger.info('rail notification decided', { rail, projectId, env, eventId, decision, reason, duplicate });
  },
  notificationRejected(rail: string, projectId: string, env: string, reason: string, auditEventId: string): void {
    logger.warn('rail notification rejected', { rail, projectId, env, reason, auditEventId });
  },
  providerUnavailable(rail: string, projectId: string, detail: string): void {
    logger.warn('rail provider unavailable; the rail will retry', { rail, projectId, detail });
  },
};
