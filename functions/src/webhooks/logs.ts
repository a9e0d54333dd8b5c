import * as logger from 'firebase-functions/logger';

/** Every log line of outbound webhooks. Never a secret, a signature or a body. Successes are on the delivery records, not logged. */
export const webhookLogs = {
  deliveryDropped(task: Record<string, unknown>, reason: string): void {
    logger.warn('webhook delivery task dropped', { projectId: task.projectId, env: task.env, eventId: task.eventId, endpointId: task.endpointId, reason });
  },
  attemptFailed(projectId: string, env: string, deliveryId: string, attempt: number, error: string, statusCode: number | null, nextRetryAt: number | null): void {
    logger.warn('webhook delivery attempt failed', { projectId, env, deliveryId, attempt, error, statusCode, nextRetryAt });
  },
  /** The fan-out made no first attempt for this delivery (or lost its answer): its task makes it. Never the secret's text. */
  firstAttemptLeftToTask(projectId: string, env: string, deliveryId: string, reason: 'secrets_unavailable' | 'attempt_threw', detail: string): void {
    logger.warn('webhook first attempt left to the delivery task', { projectId, env, deliveryId, reason, detail });
  },
  deliveryFailed(projectId: string, env: string, deliveryId: string, failure: string): void {
    logger.warn('webhook delivery failed', { projectId, env, deliveryId, failure });
  },
  endpointDisabled(projectId: string, env: string, endpointId: string, reason: string, auditEventId: string): void {
    logger.warn('webhook endpoint disabled by its deliveries', { projectId, env, endpointId, reason, auditEventId });
  },
  signingSecretNotRetired(projectId: string, endpointId: string, ref: string, detail: string): void {
    logger.error('webhook signing secret not deleted; retried by the next worker run if its endpoint still names it', { projectId, endpointId, ref, detail });
  },
};
