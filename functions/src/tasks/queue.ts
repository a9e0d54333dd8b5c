/**
 * Background work (erasure, identity resolution, webhook fan-out and delivery) goes through a TaskQueue: Cloud Tasks in
 * production, an in-process dispatcher locally and in tests. Both de-duplicate by task id and
 * retry a handler that throws; a handler that returns has finished (or chose to drop the task).
 */
export type QueueName = 'erasure' | 'identityResolution' | 'webhookFanout' | 'webhookDelivery';

export interface EnqueueOptions {
  /** Deterministic id: a second enqueue with the same id is a no-op. */
  id: string;
  scheduleDelaySeconds?: number;
}

export type EnqueueResult = 'enqueued' | 'duplicate';

export interface TaskQueue {
  enqueue(queue: QueueName, payload: Record<string, unknown>, options: EnqueueOptions): Promise<EnqueueResult>;
}

/** Retry policy shared by the Cloud Tasks functions and the in-process dispatcher. */
export const RETRY_POLICY = {
  maxAttempts: 5,
  minBackoffSeconds: 10,
  maxBackoffSeconds: 300,
} as const;
