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

/** A queue's retries of a handler that throws (Cloud Tasks `retryConfig`; the in-process queue follows it too). */
export interface RetryPolicy {
  maxAttempts: number;
  minBackoffSeconds: number;
  maxBackoffSeconds: number;
  /** Stop retrying once this long has passed since the first attempt (unset: attempts only). */
  maxRetrySeconds?: number;
  /** Backoff doubles this many times, then grows linearly (Cloud Tasks' rule; unset: 16). */
  maxDoublings?: number;
}

/** Retry policy of the erasure and identity-resolution queues. */
export const RETRY_POLICY = {
  maxAttempts: 5,
  minBackoffSeconds: 10,
  maxBackoffSeconds: 300,
} as const;

/**
 * Webhook deliveries: a receiver's failure never throws (the handler records the attempt and
 * schedules the next one itself, with jitter, see webhooks/README.md); a throw means our side
 * failed (store, secret store), and is retried for as long as a delivery may take: 3 days.
 */
const WEBHOOK_DELIVERY_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 100,
  minBackoffSeconds: 30,
  maxBackoffSeconds: 3600,
  maxDoublings: 7,
  maxRetrySeconds: 3 * 24 * 3600,
};

/** Each queue's policy, shared by the Cloud Tasks functions (index.ts) and the in-process dispatcher. */
export const RETRY_POLICIES: Record<QueueName, RetryPolicy> = {
  erasure: RETRY_POLICY,
  identityResolution: RETRY_POLICY,
  webhookFanout: RETRY_POLICY,
  webhookDelivery: WEBHOOK_DELIVERY_RETRY_POLICY,
};

/** Cloud Tasks' backoff before attempt n (2-based): doubling from the minimum `maxDoublings` times, then linear, capped. */
export function policyBackoffSeconds(policy: RetryPolicy, attempt: number): number {
  const retry = Math.max(1, attempt - 1);
  const doublings = Math.min(retry - 1, policy.maxDoublings ?? 16);
  const linear = retry - 1 - doublings;
  const base = policy.minBackoffSeconds * 2 ** doublings;
  return Math.min(policy.maxBackoffSeconds, base + linear * base);
}
