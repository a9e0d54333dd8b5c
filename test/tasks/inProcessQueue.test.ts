/**
 * Guarantees of the in-process task queue (`npm start` and tests), which stands in for Cloud
 * Tasks with the same numbers (tasks/queue.ts QUEUE_CONFIGS): a task that throws is retried
 * after the queue's retryConfig backoff and given up at its maximum; `stop()` returns within its
 * grace whatever is queued (a delayed retry never holds it, issue 19 §6), and tasks waiting for
 * their time are kept in the store, so that the next start runs them.
 */
import { policyBackoffSeconds, QUEUE_CONFIGS, RetryLaterError } from '../../functions/src/tasks/queue';
import { InProcessTaskQueue } from '../../functions/src/tasks/inProcessQueue';
import { FirestorePendingTaskStore, type PendingTask, type PendingTaskStore } from '../../functions/src/tasks/pendingTasks';
import { createTestService } from '../support/harness';

/** A store in memory, for the tests that run on fake timers (no store round trips there). */
class MemoryStore implements PendingTaskStore {
  readonly tasks = new Map<string, PendingTask>();
  async save(task: PendingTask) {
    this.tasks.set(task.key, { ...task });
  }
  async remove(key: string) {
    this.tasks.delete(key);
  }
  async loadAll() {
    return [...this.tasks.values()];
  }
}

describe('retries (fake timers)', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_800_000_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('retries a throwing task after the queue’s own backoff, then gives up at its maxAttempts', async () => {
    const queue = new InProcessTaskQueue();
    const runs: number[] = [];
    const start = Date.now();
    queue.attach(async () => {
      runs.push(Date.now() - start);
      throw new RetryLaterError('receiver down');
    });
    await queue.enqueue('erasure', {}, { id: 'always-failing' });
    const drained = queue.drain();
    await jest.advanceTimersByTimeAsync(3600 * 1000);
    await drained;
    const policy = QUEUE_CONFIGS.erasure.retryConfig;
    const expected = [0];
    for (let attempt = 2; attempt <= policy.maxAttempts; attempt += 1) expected.push(expected.at(-1)! + policyBackoffSeconds(policy, attempt) * 1000);
    expect(runs).toEqual(expected); // 0, 10 s, 30 s, 70 s, 150 s: five attempts
  });

  it('retries until both maxAttempts and maxRetrySeconds are reached when both are set, as Cloud Tasks does', async () => {
    const queue = new InProcessTaskQueue();
    let runs = 0;
    queue.attach(async () => {
      runs += 1;
      throw new Error('our own fault');
    });
    await queue.enqueue('webhookDelivery', {}, { id: 'own-fault' });
    const drained = queue.drain();
    await jest.advanceTimersByTimeAsync(5 * 24 * 3600 * 1000);
    await drained;
    const policy = QUEUE_CONFIGS.webhookDelivery.retryConfig;
    let expected = 1;
    for (let at = 0; ; expected += 1) {
      at += policyBackoffSeconds(policy, expected + 1);
      if (expected + 1 > policy.maxAttempts && at > policy.maxRetrySeconds!) break;
    }
    expect(runs).toBe(expected);
    expect(runs).toBeGreaterThan(policy.maxAttempts); // the handler, not the queue, stops deliveries at 25 (deliver.ts)
  });

  it('dispatches at the queue’s maxDispatchesPerSecond after a burst of a second’s worth (Cloud Tasks’ bucket)', async () => {
    const queue = new InProcessTaskQueue();
    const starts: number[] = [];
    const start = Date.now();
    queue.attach(async () => {
      starts.push(Date.now() - start);
    });
    const { maxDispatchesPerSecond: rate } = QUEUE_CONFIGS.webhookDelivery.rateLimits;
    for (let i = 0; i < rate + 5; i += 1) await queue.enqueue('webhookDelivery', {}, { id: `burst-${i}` });
    const drained = queue.drain();
    await jest.advanceTimersByTimeAsync(2000);
    await drained;
    expect(starts.slice(0, rate)).toEqual(new Array(rate).fill(0));
    expect(starts.slice(rate)).toEqual([1, 2, 3, 4, 5].map((n) => Math.round((n * 1000) / rate)));
  });

  it('stops within its grace while a retry waits hours for its backoff, keeping it for the next start', async () => {
    const store = new MemoryStore();
    const queue = new InProcessTaskQueue({ pending: store });
    let runs = 0;
    queue.attach(async () => {
      runs += 1;
      throw new RetryLaterError('receiver down');
    });
    await queue.enqueue('webhookDelivery', { n: 1 }, { id: 'failing-delivery' });
    await queue.enqueue('webhookDelivery', { n: 2 }, { id: 'later', scheduleDelaySeconds: 4 * 3600 });
    await jest.advanceTimersByTimeAsync(0);
    expect(runs).toBe(1);
    let stopped = false;
    void queue.stop(1000).then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(true); // nothing running: no need to wait even for the grace
    expect([...store.tasks.values()].map((t) => [t.id, t.attempt]).sort()).toEqual([['failing-delivery', 2], ['later', 1]]);
    await jest.advanceTimersByTimeAsync(8 * 3600 * 1000);
    expect(runs).toBe(1); // a stopped queue runs nothing more
  });

  it('gives a running task the grace, then keeps it to run again after a restart', async () => {
    const store = new MemoryStore();
    const queue = new InProcessTaskQueue({ pending: store });
    queue.attach(() => new Promise<void>(() => undefined)); // never finishes
    await queue.enqueue('identityResolution', { batch: 'b1' }, { id: 'stuck' });
    await jest.advanceTimersByTimeAsync(0);
    let stopped = false;
    void queue.stop(1500).then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(1000);
    expect(stopped).toBe(false);
    await jest.advanceTimersByTimeAsync(600);
    expect(stopped).toBe(true);
    expect([...store.tasks.values()].map((t) => t.id)).toEqual(['stuck']);
  });
});

describe('waiting tasks survive a restart (local store)', () => {
  const service = createTestService();
  const store = new FirestorePendingTaskStore(service.deps.db);

  it('runs, after a restart, the retry scheduled before the stop, and forgets it once done', async () => {
    const before = new InProcessTaskQueue({ pending: store });
    let firstRuns = 0;
    before.attach(async () => {
      firstRuns += 1;
      throw new RetryLaterError('receiver down');
    });
    const id = `restart-${Date.now()}`;
    await before.enqueue('webhookDelivery', { delivery: id }, { id });
    while (firstRuns === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await before.stop(1000);
    const kept = (await store.loadAll()).filter((t) => t.id === id);
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ queue: 'webhookDelivery', payload: { delivery: id }, attempt: 2 });
    expect(kept[0].runAt).toBeGreaterThan(Date.now() + 20_000); // the queue's 30 s backoff

    await store.save({ ...kept[0], runAt: Date.now() }); // its time has come while the stack was down
    const after = new InProcessTaskQueue({ pending: store });
    const ran: unknown[] = [];
    after.attach(async (_queue, payload) => {
      ran.push(payload);
    });
    expect(await after.resume()).toBeGreaterThanOrEqual(1);
    await after.drain();
    expect(ran).toContainEqual({ delivery: id });
    expect((await store.loadAll()).filter((t) => t.id === id)).toEqual([]);
    expect(await after.enqueue('webhookDelivery', {}, { id })).toBe('duplicate'); // still de-duplicated by id
  });
});
