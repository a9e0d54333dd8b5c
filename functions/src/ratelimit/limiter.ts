import type { Clock } from '../clock';
import type { BucketId, BucketStore } from './bucketStore';
import type { BucketSpec } from './tokenBucket';

/**
 * Rate limiting across instances.
 *
 * The bucket of record is shared (BucketStore, Firestore in production). Each instance leases
 * tokens from it in chunks of a tenth of the burst and spends them locally, so a request that
 * its instance's lease covers costs no store round trip, and the shared document is written
 * once per chunk rather than once per request. When the shared bucket is dry the instance
 * remembers it until one token has had time to refill, and answers from memory meanwhile.
 *
 * Multi-instance behaviour: the sum of all instances never exceeds the shared bucket, except
 * while the store is failing (the limiter fails open, as the spec requires). Tokens an instance
 * leased but did not spend within LEASE_TTL_MS are discarded, which can only make the limit
 * stricter, by at most one chunk per instance per second.
 */
const LEASE_TTL_MS = 1_000;
const LEASE_CHUNK_FRACTION = 0.1;
const DEMAND_WINDOW_MS = 1_000;
/** Waits for (or runs) at most this many leases per request before answering from what it has. */
const MAX_LEASE_ROUNDS = 3;

export interface LimitDecision {
  /** Tokens granted (equal to the cost unless throttled). */
  granted: number;
  requested: number;
  /** When a throttled caller may expect `requested` tokens again. */
  retryAfterMs: number;
  /** Hint for proportional client sampling: the share of the recent demand the bucket sustains. */
  sampleRate: number;
  failedOpen: boolean;
}

interface LocalBucket {
  tokens: number;
  leasedAt: number;
  dryUntil: number;
  /** Tokens wanted by requests of this instance that are waiting for a lease. */
  waiting: number;
  /** The last lease failed: requests that waited on it fail open too. */
  storeFailing: boolean;
  demandWindowStart: number;
  demand: number;
}

export class RateLimiter {
  private readonly local = new Map<string, LocalBucket>();
  private readonly leases = new Map<string, Promise<void>>();

  constructor(
    private readonly store: BucketStore,
    private readonly clock: Clock,
    private readonly onStoreFailure: (err: unknown, id: BucketId) => void = () => undefined,
  ) {}

  /** Takes up to `cost` tokens; callers decide whether a partial grant is useful. */
  async take(id: BucketId, spec: BucketSpec, cost: number): Promise<LimitDecision> {
    const now = this.clock.now();
    const key = `${id.projectId}/${id.env}/${id.bucket}`;
    const bucket = this.localBucket(key, now);
    const sampleRate = this.recordDemand(bucket, spec, cost, now);
    const decision = (granted: number, failedOpen = false): LimitDecision => ({
      granted,
      requested: cost,
      retryAfterMs: granted >= cost ? 0 : Math.ceil(((cost - granted) * 1000) / spec.ratePerSec),
      sampleRate: granted >= cost ? 1 : sampleRate,
      failedOpen,
    });

    // One lease per bucket at a time on this instance: concurrent requests wait for the lease
    // in flight and spend from it, instead of each contending for the shared document.
    // A lease covers every request waiting at the time it starts.
    bucket.waiting += cost;
    try {
      for (let round = 0; round < MAX_LEASE_ROUNDS && bucket.tokens < cost && this.clock.now() >= bucket.dryUntil; round += 1) {
        await (this.leases.get(key) ?? this.startLease(key, id, spec, bucket));
        if (bucket.storeFailing) return decision(cost, true);
      }
    } finally {
      bucket.waiting -= cost;
    }
    const granted = Math.min(cost, Math.floor(bucket.tokens + 1e-9));
    bucket.tokens -= granted;
    return decision(granted);
  }

  /** Leases for the bucket and settles only once the lease is no longer in flight. */
  private startLease(key: string, id: BucketId, spec: BucketSpec, bucket: LocalBucket): Promise<void> {
    const lease = (async () => {
      const now = this.clock.now();
      const need = Math.max(1, Math.ceil(bucket.waiting - bucket.tokens));
      const want = Math.max(need, Math.min(spec.burst, need + Math.ceil(spec.burst * LEASE_CHUNK_FRACTION)));
      try {
        const leased = await this.store.lease(id, spec, want, now);
        bucket.storeFailing = false;
        bucket.tokens += leased;
        bucket.leasedAt = now;
        if (leased < need) bucket.dryUntil = now + Math.ceil(1000 / spec.ratePerSec);
      } catch (err) {
        bucket.storeFailing = true;
        this.onStoreFailure(err, id);
      } finally {
        this.leases.delete(key);
      }
    })();
    this.leases.set(key, lease);
    return lease;
  }

  private localBucket(key: string, now: number): LocalBucket {
    let bucket = this.local.get(key);
    if (!bucket) {
      bucket = { tokens: 0, leasedAt: now, dryUntil: 0, waiting: 0, storeFailing: false, demandWindowStart: now, demand: 0 };
      this.local.set(key, bucket);
    }
    if (now - bucket.leasedAt > LEASE_TTL_MS) bucket.tokens = 0;
    return bucket;
  }

  private recordDemand(bucket: LocalBucket, spec: BucketSpec, cost: number, now: number): number {
    if (now - bucket.demandWindowStart > DEMAND_WINDOW_MS) {
      bucket.demandWindowStart = now;
      bucket.demand = 0;
    }
    bucket.demand += cost;
    const seconds = Math.max(1, (now - bucket.demandWindowStart) / 1000);
    const rate = spec.ratePerSec / (bucket.demand / seconds);
    return Math.max(0.001, Math.min(1, Math.round(rate * 1000) / 1000));
  }
}
