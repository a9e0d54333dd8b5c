/**
 * Background work (erasure, identity resolution, webhook fan-out and delivery) goes through a TaskQueue: Cloud Tasks in
 * production, an in-process dispatcher locally and in tests. Both de-duplicate by task id and
 * retry a handler that throws; a handler that returns has finished (or chose to drop the task).
 */
export type QueueName = 'erasure' | 'identityResolution' | 'webhookFanout' | 'webhookDelivery';

/** @internal every queue, for the test that checks each one's retry configuration */
export const QUEUE_NAMES: readonly QueueName[] = ['erasure', 'identityResolution', 'webhookFanout', 'webhookDelivery'];

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

/** A queue's congestion control (Cloud Tasks `rateLimits`; the in-process queue runs at most `maxConcurrentDispatches` at once too). */
export interface RateLimits {
  maxConcurrentDispatches: number;
  maxDispatchesPerSecond: number;
}

/** Everything about a queue that must be the same deployed, under the emulator and in process: ONE declaration. */
export interface QueueConfig {
  retryConfig: RetryPolicy;
  rateLimits: RateLimits;
  /**
   * At most this many at once when the queue runs in the process that serves the requests
   * (`npm start`, tests), so that a burst of store-heavy tasks does not crowd out the requests'
   * event loop. Unset: `rateLimits.maxConcurrentDispatches`. Deployed (and in the bench's task
   * worker) the tasks have their own instances and only `rateLimits` applies.
   */
  besideRequestsMaxConcurrent?: number;
}

/** Retry policy of the erasure, identity-resolution and fan-out queues. */
export const RETRY_POLICY = {
  maxAttempts: 5,
  minBackoffSeconds: 10,
  maxBackoffSeconds: 300,
} as const;

/** Delivery attempts of one webhook event to one endpoint: never more than this many, whatever the queue does. */
export const MAX_DELIVERY_ATTEMPTS = 25;
/** ...and never after this long since the first attempt (Stripe's promise: retries for up to 3 days). */
export const DELIVERY_RETRY_SECONDS = 3 * 24 * 3600;

/**
 * Webhook deliveries: a failed attempt throws, and the queue schedules the next one: 30 s
 * doubling to 4 h (30, 60, … 7680 s, then 4 h), 25 attempts in about 64 h. The handler also
 * counts attempts on the delivery record and refuses a 26th or one after 3 days (deliver.ts),
 * because Cloud Tasks retries until BOTH `maxAttempts` and `maxRetrySeconds` are reached.
 */
const WEBHOOK_DELIVERY_RETRY_POLICY: RetryPolicy = {
  maxAttempts: MAX_DELIVERY_ATTEMPTS,
  minBackoffSeconds: 30,
  maxBackoffSeconds: 4 * 3600,
  maxDoublings: 9,
  maxRetrySeconds: DELIVERY_RETRY_SECONDS,
};

/**
 * Each queue's retry and rate configuration: index.ts hands it to each task-queue function
 * (deployed and under the Tasks emulator) and the in-process queue (`npm start`, tests) applies
 * the same numbers. Concurrency: a delivery holds its dispatch while a receiver answers (up to
 * 10 s), so 10 at once bounds what a burst of events opens towards receivers (a receiver is
 * often most of a partition's endpoints) while a slow one cannot stall the rest; erasure and
 * fan-out run 2 at once.
 *
 * Identity resolution stores every landed events batch, so its queue IS the deployment's event
 * storage capacity: at 2 at once / 50 per s the whole deployment stored ~2 landings at a time
 * (~20 landings/s at ~100 ms each, 2,000 events/s), and a burst's background was bound by the
 * queue, not by the work. 20 at once / 200 per s (issue 23), bounded by:
 * - the task function: 20 tasks of 15–60 ms CPU each (a 100-event landing, docs/benchmarks.md)
 *   fit one or two instances at concurrency 80 (index.ts), so Cloud Run scales on CPU, not on
 *   a queue; 200/s is 3–12 CPUs at most, reached only by small landings from many projects;
 * - the store: a partition's sustained input is capped by its events bucket (100 events/s), so
 *   its rollup documents (8 event-count shards, 4 per error group) see a few writes per second
 *   whatever the queue allows; the event documents have random ids (no index hotspot); the
 *   identity documents are read, and written only when a new device links (a transaction);
 * - Cloud Tasks' own ceiling (500 dispatches/s per queue) is left for growth.
 * In the process that also serves requests it stays at 2 at once (`besideRequestsMaxConcurrent`).
 */
export const QUEUE_CONFIGS: Record<QueueName, QueueConfig> = {
  erasure: { retryConfig: RETRY_POLICY, rateLimits: { maxConcurrentDispatches: 2, maxDispatchesPerSecond: 10 } },
  identityResolution: { retryConfig: RETRY_POLICY, rateLimits: { maxConcurrentDispatches: 20, maxDispatchesPerSecond: 200 }, besideRequestsMaxConcurrent: 2 },
  webhookFanout: { retryConfig: RETRY_POLICY, rateLimits: { maxConcurrentDispatches: 2, maxDispatchesPerSecond: 50 } },
  webhookDelivery: { retryConfig: WEBHOOK_DELIVERY_RETRY_POLICY, rateLimits: { maxConcurrentDispatches: 10, maxDispatchesPerSecond: 20 } },
};

/** Each queue's retry policy (QUEUE_CONFIGS' retryConfig). */
export const RETRY_POLICIES: Record<QueueName, RetryPolicy> = {
  erasure: QUEUE_CONFIGS.erasure.retryConfig,
  identityResolution: QUEUE_CONFIGS.identityResolution.retryConfig,
  webhookFanout: QUEUE_CONFIGS.webhookFanout.retryConfig,
  webhookDelivery: QUEUE_CONFIGS.webhookDelivery.retryConfig,
};

/** Cloud Tasks' backoff before attempt n (2-based): doubling from the minimum `maxDoublings` times, then linear, capped. */
export function policyBackoffSeconds(policy: RetryPolicy, attempt: number): number {
  const retry = Math.max(1, attempt - 1);
  const doublings = Math.min(retry - 1, policy.maxDoublings ?? 16);
  const linear = retry - 1 - doublings;
  const base = policy.minBackoffSeconds * 2 ** doublings;
  return Math.min(policy.maxBackoffSeconds, base + linear * base);
}

/**
 * Thrown by a handler whose work failed for someone else's reason (a webhook receiver's 500):
 * the queue retries the task with its retryConfig backoff, as for any throw, but it is an
 * expected outcome, not a fault (the in-process queue logs it quietly).
 */
export class RetryLaterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RetryLaterError';
  }
}
