/**
 * Per-instance serialisation of work on the same keys. Identify calls for one identifier that
 * reach the same instance queue here instead of racing into the same Firestore transaction
 * (where every racer would take read locks, then all deadlock upgrading them to write locks).
 * Correctness never depends on it: across instances the transaction still decides.
 *
 * A caller joins the queue of every key in one synchronous step, so queues are FIFO and the
 * waits always follow arrival order: no deadlock, whatever keys callers share.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T> {
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    const unique = [...new Set(keys)];
    const previous = unique.map((key) => {
      const prior = this.tails.get(key) ?? Promise.resolve();
      this.tails.set(key, done);
      return prior;
    });
    try {
      await Promise.all(previous);
      return await fn();
    } finally {
      release();
      for (const key of unique) if (this.tails.get(key) === done) this.tails.delete(key);
    }
  }
}
