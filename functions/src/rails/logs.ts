import * as logger from 'firebase-functions/logger';

/** Log lines of the rails. Never a payload, a signature, a token or a secret. */
export const railLogs = {
  notificationDecided(rail: string, projectId: string, env: string, eventId: string, decision: string, reason: string, duplicate: boolean): void {
    logger.info('rail notification decided', { rail, projectId, env, eventId, decision, reason, duplicate });
  },
  /** Failed verification: nothing was read under, or written for, anything the body claims. */
  notificationUnverified(requestId: string, rail: string, projectId: string, reason: string): void {
    logger.warn('rail notification failed verification; nothing recorded', { requestId, rail, projectId, reason });
  },
  /** Verified but unusable: recorded as `rejected` and answered 2xx so the rail stops retrying. */
  notificationRejected(requestId: string, rail: string, projectId: string, env: string, eventId: string, reason: string, duplicate: boolean): void {
    logger.warn('rail notification verified but unusable; recorded as rejected', { requestId, rail, projectId, env, eventId, reason, duplicate });
  },
  providerUnavailable(rail: string, projectId: string, detail: string): void {
    logger.warn('rail provider unavailable; the rail will retry', { rail, projectId, detail });
  },
};
