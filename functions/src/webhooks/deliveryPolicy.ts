import { DAY, SECOND } from '../clock';
import { DELIVERY_RETRY_SECONDS, MAX_DELIVERY_ATTEMPTS, policyBackoffSeconds, RETRY_POLICIES } from '../tasks/queue';
import type { Lookup } from './destination';

/**
 * When a delivery gives up and an endpoint is disabled, how long an attempt may take, and when
 * the queue makes the next one: Stripe's rules (retries for up to 3 days with exponential
 * backoff, endpoints disabled after persistent failure).
 */
const ATTEMPT_TIMEOUT_MS = 10 * SECOND;
/** A delivery is retried until this long after its first attempt, then marked failed. */
export const RETRY_WINDOW_MS = DELIVERY_RETRY_SECONDS * SECOND;
/** An endpoint whose every attempt has failed for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 3 * DAY;
/** How long past its timeout a claimed attempt may go unrecorded before its run is presumed dead. */
export const CLAIM_MARGIN_MS = 5 * SECOND;

/**
 * Seconds the queue waits after `failedAttempts` failures before the next attempt: the
 * webhookDelivery queue's retryConfig (tasks/queue.ts), 30 s doubling to 4 h. The queue does
 * the waiting; the delivery only records when that will be (`nextRetryAt`).
 */
export function queueRetryDelaySeconds(failedAttempts: number): number {
  return policyBackoffSeconds(RETRY_POLICIES.webhookDelivery, failedAttempts + 1);
}

/** Test seams of the delivery (Deps.webhookDelivery); production uses the defaults. */
export interface DeliveryOverrides {
  /** A shorter attempt timeout (tests of the timeout). Default 10 s. */
  timeoutMs?: number;
  /** The backoff of the queue that runs the tasks (tests whose queue retries at once: 0). Default: the queue's retryConfig. */
  retryDelaySeconds?: (failedAttempts: number) => number;
  /** DNS resolution of destinations (tests: a name that resolves to a private address). Default `dns.promises.lookup`. */
  lookup?: Lookup;
}

export interface DeliveryPolicy {
  timeoutMs: number;
  retryDelaySeconds: (failedAttempts: number) => number;
  /** At most this many attempts per delivery (the queue's maxAttempts). */
  maxAttempts: number;
  lookup?: Lookup;
}

export function deliveryPolicy(overrides: DeliveryOverrides = {}): DeliveryPolicy {
  return {
    timeoutMs: overrides.timeoutMs ?? ATTEMPT_TIMEOUT_MS,
    retryDelaySeconds: overrides.retryDelaySeconds ?? queueRetryDelaySeconds,
    maxAttempts: MAX_DELIVERY_ATTEMPTS,
    lookup: overrides.lookup,
  };
}
