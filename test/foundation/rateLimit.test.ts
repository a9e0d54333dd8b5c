/**
 * Guarantees of the rate limiter (Limits › Rate limits): linear refill up to the burst cap, a
 * full burst from idle, 429 with Retry-After and X-Service-Sample-Rate, buckets per project and
 * environment, the shared bucket written once per lease rather than per request, and failing
 * open when its own storage fails.
 */
import { SECOND } from '../../functions/src/clock';
import { ManualClock } from '../support/manualClock';
import type { BucketId, BucketStore } from '../../functions/src/ratelimit/bucketStore';
import { RateLimiter } from '../../functions/src/ratelimit/limiter';
import { fullBucket, refill, takeUpTo } from '../../functions/src/ratelimit/tokenBucket';
import { createTestService, expectError, seedProject } from '../support/harness';

const spec = { ratePerSec: 10, burst: 100 };

describe('token bucket arithmetic (unit)', () => {
  it('starts full, refills linearly, and caps at the burst', () => {
    const start = fullBucket(spec, 0);
    const spent = takeUpTo(start, spec, 0, 100);
    expect(spent.taken).toBe(100);
    expect(refill(spent.state, spec, 500).tokens).toBeCloseTo(5);
    expect(refill(spent.state, spec, 60_000).tokens).toBe(100);
  });

  it('takes only what is there', () => {
    const { taken, state } = takeUpTo({ tokens: 3.5, updatedAt: 0 }, spec, 0, 10);
    expect(taken).toBe(3);
    expect(state.tokens).toBeCloseTo(0.5);
  });
});

/** A shared bucket in memory that counts its writes, or fails on demand. */
class CountingStore implements BucketStore {
  writes = 0;
  failing = false;
  private readonly buckets = new Map<string, { tokens: number; updatedAt: number }>();
  async lease(id: BucketId, s: typeof spec, want: number, now: number): Promise<number> {
    if (this.failing) throw new Error('store unavailable');
    const key = `${id.projectId}/${id.env}/${id.bucket}`;
    const { taken, state } = takeUpTo(this.buckets.get(key) ?? fullBucket(s, now), s, now, want);
    this.buckets.set(key, state);
    this.writes += 1;
    return taken;
  }
}

describe('leasing limiter (unit)', () => {
  const id: BucketId = { projectId: 'p', env: 'test', bucket: 'alias' };

  it('spends a full burst from idle, then throttles, then refills', async () => {
    const clock = new ManualClock(0);
    const limiter = new RateLimiter(new CountingStore(), clock);
    let granted = 0;
    for (let i = 0; i < 100; i += 1) granted += (await limiter.take(id, spec, 1)).granted;
    expect(granted).toBe(100);
    const throttled = await limiter.take(id, spec, 1);
    expect(throttled.granted).toBe(0);
    expect(throttled.retryAfterMs).toBe(100);
    expect(throttled.sampleRate).toBeGreaterThan(0);
    expect(throttled.sampleRate).toBeLessThan(1);
    clock.advance(SECOND);
    let refilled = 0;
    for (let i = 0; i < 20; i += 1) refilled += (await limiter.take(id, spec, 1)).granted;
    expect(refilled).toBe(10);
  });

  it('writes the shared bucket once per lease, not once per request', async () => {
    const store = new CountingStore();
    const limiter = new RateLimiter(store, new ManualClock(0));
    for (let i = 0; i < 100; i += 1) await limiter.take(id, spec, 1);
    expect(store.writes).toBeLessThanOrEqual(10);
    // A dry bucket is remembered: a flood of throttled requests does not touch the store.
    const before = store.writes;
    for (let i = 0; i < 50; i += 1) await limiter.take(id, spec, 1);
    expect(store.writes - before).toBeLessThanOrEqual(1);
  });

  it('grants a partial batch when the bucket cannot pay for all of it', async () => {
    const limiter = new RateLimiter(new CountingStore(), new ManualClock(0));
    expect((await limiter.take(id, spec, 70)).granted).toBe(70);
    const partial = await limiter.take(id, spec, 50);
    expect(partial.granted).toBe(30);
    expect(partial.retryAfterMs).toBe(2000);
  });

  it('two instances never exceed the shared bucket together', async () => {
    const store = new CountingStore();
    const clock = new ManualClock(0);
    const a = new RateLimiter(store, clock);
    const b = new RateLimiter(store, clock);
    let granted = 0;
    for (let i = 0; i < 150; i += 1) granted += (await (i % 2 ? a : b).take(id, spec, 1)).granted;
    expect(granted).toBe(100);
  });

  it('fails open when its storage fails', async () => {
    const store = new CountingStore();
    store.failing = true;
    const failures: unknown[] = [];
    const limiter = new RateLimiter(store, new ManualClock(0), (err) => failures.push(err));
    for (let i = 0; i < 300; i += 1) expect((await limiter.take(id, spec, 1)).granted).toBe(1);
    expect(failures.length).toBeGreaterThan(0);
  });
});

describe('heartbeat rate limit on the wire (Firestore-backed bucket)', () => {
  it('allows the burst of 10, then 429 with Retry-After and X-Service-Sample-Rate; other env and project unaffected', async () => {
    const service = createTestService();
    const project = await seedProject(service);
    const other = await seedProject(service);
    const beat = (key: string) => service.request().get('/v1/sdk/heartbeat').set('Authorization', `Bearer ${key}`);
    for (let i = 0; i < 10; i += 1) expect((await beat(project.ios.test.secret)).status).toBe(200);
    const limited = await beat(project.ios.test.secret);
    expectError(limited, 429, 'rate_limit_error', 'rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const sampleRate = Number(limited.headers['x-service-sample-rate']);
    expect(sampleRate).toBeGreaterThan(0);
    expect(sampleRate).toBeLessThanOrEqual(1);
    expect((await beat(project.ios.live.secret)).status).toBe(200);
    expect((await beat(other.ios.test.secret)).status).toBe(200);
    service.clock.advance(2 * SECOND);
    expect((await beat(project.ios.test.secret)).status).toBe(200);
  });

  it('fails open on the wire when the bucket store is down', async () => {
    const failing: BucketStore = { lease: async () => Promise.reject(new Error('firestore unavailable')) };
    const service = createTestService({ bucketStore: failing });
    const project = await seedProject(service);
    for (let i = 0; i < 15; i += 1) {
      expect((await service.request().get('/v1/sdk/heartbeat').set('Authorization', `Bearer ${project.ios.test.secret}`)).status).toBe(200);
    }
  });
});

describe('concurrent requests on one instance', () => {
  it('share one lease in flight instead of each leasing from the shared bucket', async () => {
    const store = new CountingStore();
    const limiter = new RateLimiter(store, new ManualClock(0));
    const id: BucketId = { projectId: 'p', env: 'live', bucket: 'alias' };
    const decisions = await Promise.all(Array.from({ length: 10 }, () => limiter.take(id, spec, 1)));
    expect(decisions.every((d) => d.granted === 1)).toBe(true);
    expect(store.writes).toBe(1);
  });

  it('fail open together when the lease they waited on failed', async () => {
    const store = new CountingStore();
    store.failing = true;
    const limiter = new RateLimiter(store, new ManualClock(0));
    const id: BucketId = { projectId: 'p', env: 'live', bucket: 'forget' };
    const decisions = await Promise.all(Array.from({ length: 5 }, () => limiter.take(id, spec, 1)));
    expect(decisions.every((d) => d.granted === 1 && d.failedOpen)).toBe(true);
  });
});

describe('a crowd on one instance', () => {
  it('is served up to the burst by few leases, whatever its size', async () => {
    const store = new CountingStore();
    const limiter = new RateLimiter(store, new ManualClock(0));
    const id: BucketId = { projectId: 'p', env: 'live', bucket: 'events' };
    const decisions = await Promise.all(Array.from({ length: 150 }, () => limiter.take(id, spec, 1)));
    expect(decisions.filter((d) => d.granted === 1)).toHaveLength(100);
    expect(store.writes).toBeLessThanOrEqual(3);
  });
});
