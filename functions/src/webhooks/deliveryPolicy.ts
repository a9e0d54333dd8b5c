import { DAY, SECOND } from '../clock';
import type { Lookup } from './destination';

/**
 * When a delivery gives up and an endpoint is disabled, how long an attempt may take, and how
 * long to wait before the next: Stripe's rules (retries for up to 3 days with exponential
 * backoff, endpoints disabled after persistent failure).
 */
const ATTEMPT_TIMEOUT_MS = 10 * SECOND;
/** A delivery is retried until this long after its first attempt, then marked failed. */
export const RETRY_WINDOW_MS = 3 * DAY;
/** An endpoint whose every attempt has failed for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 3 * DAY;

const FIRST_RETRY_SECONDS = 30;
export const MAX_RETRY_SECONDS = 4 * 3600;

/**
 * Seconds before the retry that follows `failedAttempts` failures: a ceiling doubling from 30 s
 * to 4 h, and a uniform draw between half of it and all of it ("equal jitter"), so that the
 * retries of many deliveries failing at once (a receiver's outage) spread out instead of
 * arriving together. About 30 attempts fit in 3 days.
 */
export function retryDelaySeconds(failedAttempts: number, random: () => number = Math.random): number {
  const ceiling = Math.min(MAX_RETRY_SECONDS, FIRST_RETRY_SECONDS * 2 ** Math.max(0, failedAttempts - 1));
  return Math.max(1, Math.round(ceiling / 2 + (random() * ceiling) / 2));
}

/** Test seams of the delivery (Deps.webhookDelivery); production uses the defaults. */
export interface DeliveryOverrides {
  /** A shorter attempt timeout (tests of the timeout). Default 10 s. */
  timeoutMs?: number;
  /** Seconds before the next attempt (tests: 0). Default `retryDelaySeconds`. */
  retryDelaySeconds?: (failedAttempts: number) => number;
  /** DNS resolution of destinations (tests: a name that resolves to a private address). Default `dns.promises.lookup`. */
  lookup?: Lookup;
}

export interface DeliveryPolicy {
  timeoutMs: number;
  retryDelaySeconds: (failedAttempts: number) => number;
  lookup?: Lookup;
}

export function deliveryPolicy(overrides: DeliveryOverrides = {}): DeliveryPolicy {
  return { timeoutMs: overrides.timeoutMs ?? ATTEMPT_TIMEOUT_MS, retryDelaySeconds: overrides.retryDelaySeconds ?? retryDelaySeconds, lookup: overrides.lookup };
}
