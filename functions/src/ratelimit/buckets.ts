import type { BucketSpec } from './tokenBucket';

/** Limits › Rate limits: per project, per environment, per endpoint. */
export const BUCKETS = {
  events: { ratePerSec: 100, burst: 1000 },
  purchases: { ratePerSec: 10, burst: 100 },
  entitlements: { ratePerSec: 100, burst: 1000 },
  heartbeat: { ratePerSec: 1, burst: 10 },
  forget: { ratePerSec: 1, burst: 10 },
  alias: { ratePerSec: 10, burst: 100 },
  /**
   * Not in the spec's table (it shows no others): every `/v1/reports/*` route shares one bucket.
   * A report reads rollups bounded by its range (a year of daily events is thousands of
   * documents), so a loop of them must meet a 429 rather than read without end.
   */
  reports: { ratePerSec: 1, burst: 20 },
} as const satisfies Record<string, BucketSpec>;

export type BucketName = keyof typeof BUCKETS;
