import * as logger from 'firebase-functions/logger';

/** Log lines of the outbox: recording, fan-out, relay and expiry worker. Ids only, never payloads. */
export const outboxLogs = {
  fanoutEnqueueFailed(projectId: string, env: string, eventId: string, detail: string): void {
    logger.warn('webhook fan-out not enqueued; the relay dispatches it', { projectId, env, eventId, detail });
  },
  /** `firstAttempts`: what the fan-out task's own first attempts did (absent for the relay's enqueue-only fan-out). */
  fannedOut(projectId: string, env: string, eventId: string, type: string, endpoints: number, firstAttempts?: { attempted: number; delivered: number; tasks: number }): void {
    logger.info('webhook event fanned out', { projectId, env, eventId, type, endpoints, ...(firstAttempts ? { firstAttempts } : {}) });
  },
  directoryBuilt(projectId: string, env: string, endpoints: number): void {
    logger.info('webhook directory built for the partition', { projectId, env, endpoints });
  },
  directoryNotBuilt(projectId: string, env: string, detail: string): void {
    logger.warn('webhook directory not built; the next fan-out tries again', { projectId, env, detail });
  },
  relayFailed(projectId: string, env: string, eventId: string, detail: string): void {
    logger.error('webhook relay: fan-out failed; retried on the next run', { projectId, env, eventId, detail });
  },
  expiryFailed(projectId: string, env: string, customerId: string, detail: string): void {
    logger.error('webhook worker: expiry not recorded; retried on the next run', { projectId, env, customerId, detail });
  },
  workerRunCompleted(report: Record<string, unknown>): void {
    logger.info('webhook worker run completed', report);
  },
};
