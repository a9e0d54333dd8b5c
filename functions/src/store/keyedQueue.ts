import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * A fair (FIFO) per-instance queue of work on the same keys.
 *
 * - A caller joins the queue of every key it names in one synchronous step and starts once
 *   every earlier caller of any of those keys has finished: waits follow arrival order, so no
 *   two callers can wait for each other whatever keys they share (no lock ordering needed).
 * - Work that already holds a key and asks for it again (directly or in a nested call) runs at
 *   once: waiting would be waiting for itself. A nested call that names keys its caller does
 *   not hold also runs at once, without the queue: joining a queue while holding another is
 *   how two callers end up waiting for each other. The store's transaction stays the arbiter
 *   either way; this queue only orders work, it never guarantees exclusion.
 * - A key with `maxWaiting` callers already queued refuses the next one (`QueueFullError`), so
 *   a burst on one key is answered at once instead of queueing without bound.
 * - The keys are released when the work settles, whether it resolves or throws.
 */
export class QueueFullError extends Error {
  constructor(readonly key: string, readonly waiting: number) {
    super(`${waiting} callers already queued for ${key}`);
    this.name = 'QueueFullError';
  }
}

interface Holding {
  /** False once the work has settled: work it spawned and that outlives it holds nothing. */
  active: boolean;
}

export interface KeyedQueueOptions {
  /** Callers allowed to wait per key beyond the one running (default: unbounded). */
  maxWaiting?: number;
}

export class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();
  private readonly waiting = new Map<string, number>();
  private readonly holding = new AsyncLocalStorage<Holding>();
  private readonly maxWaiting: number;

  constructor(options: KeyedQueueOptions = {}) {
    this.maxWaiting = options.maxWaiting ?? Number.POSITIVE_INFINITY;
  }

  async run<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T> {
    const unique = [...new Set(keys)];
    const outer = this.holding.getStore();
    if (unique.length === 0 || outer?.active) return fn();

    const full = unique.find((key) => (this.waiting.get(key) ?? 0) >= this.maxWaiting);
    if (full !== undefined) throw new QueueFullError(full, this.waiting.get(full) ?? 0);

    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    const previous = unique.map((key) => {
      const prior = this.tails.get(key);
      this.tails.set(key, done);
      if (prior) this.waiting.set(key, (this.waiting.get(key) ?? 0) + 1);
      return prior;
    });
    const holding: Holding = { active: true };
    try {
      await Promise.all(previous);
      this.stopWaiting(unique, previous);
      return await this.holding.run(holding, fn);
    } finally {
      holding.active = false;
      release();
      for (const key of unique) if (this.tails.get(key) === done) this.tails.delete(key);
    }
  }

  /** Callers queued on `key` now (the running one excluded); for tests and logs. */
  waitingOn(key: string): number {
    return this.waiting.get(key) ?? 0;
  }

  private stopWaiting(keys: readonly string[], previous: readonly (Promise<void> | undefined)[]): void {
    keys.forEach((key, i) => {
      if (!previous[i]) return;
      const left = (this.waiting.get(key) ?? 1) - 1;
      if (left > 0) this.waiting.set(key, left);
      else this.waiting.delete(key);
    });
  }
}
