import type { BucketSpec } from './tokenBucket';

/** Limits › Rate limits: per project, per environment, per endpoint. */
export const BUCKETS = {
  events: { ratePerSec: 100, burst: 1000 },
  purchases: { ratePerSec: 10, burst: 100 },
  entitlements: { ratePerSec: 100, burst: 1000 },
  heartbeat: { ratePerSec: 1, burst: 10 },
  forget: { ratePerSec: 1, burst: 10 },
  alias: { ratePerSec: 10, burst: 100 },
} as const satisfies Record<string, BucketSpec>;

export type BucketName = keyof typeof BUCKETS;
