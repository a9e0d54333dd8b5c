/**
 * Serves concurrent callers in rounds, per key: a caller that arrives while a round for its key
 * is in flight waits and joins the next round, which starts as soon as the current one ends and
 * takes every caller waiting by then (up to what `fits` allows). Each caller is therefore served
 * by a round that started after it arrived, so a read it gets is at least as fresh as one it
 * would have issued itself, and a write of its own lands in exactly one commit. N callers that
 * arrive together cost about two store round trips instead of N.
 */
export class Rounds<Item, Result> {
  private readonly inFlight = new Set<string>();
  private readonly waiting = new Map<string, Waiter<Item, Result>[]>();

  constructor(
    private readonly runRound: (items: Item[]) => Promise<Result[]>,
    /** How many of the waiting items (in arrival order, at least one) one round may take. */
    private readonly fits: (items: readonly Item[]) => number = (items) => items.length,
  ) {}

  /**
   * `startAtEndOfTurn`: when no round of the key is in flight, the first one starts once the
   * current turn of the event loop has handled its I/O (`setImmediate`) instead of at once, so
   * that callers arriving in the same turn (a burst of requests) share it rather than the first
   * reading alone and the rest waiting for a second round. Each is still served by a round that
   * started after it arrived.
   */
  submit(key: string, item: Item, startAtEndOfTurn = false): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      const queue = this.waiting.get(key) ?? [];
      queue.push({ item, resolve, reject });
      this.waiting.set(key, queue);
      if (this.inFlight.has(key)) return;
      this.inFlight.add(key);
      if (startAtEndOfTurn) setImmediate(() => void this.next(key));
      else void this.next(key);
    });
  }

  /** Runs rounds for the key until nobody is waiting. */
  private async next(key: string): Promise<void> {
    for (let queue = this.waiting.get(key); queue && queue.length > 0; queue = this.waiting.get(key)) {
      const taken = queue.splice(0, Math.max(1, this.fits(queue.map((waiter) => waiter.item))));
      try {
        const results = await this.runRound(taken.map((waiter) => waiter.item));
        taken.forEach((waiter, i) => waiter.resolve(results[i]));
      } catch (err) {
        for (const waiter of taken) waiter.reject(err);
      }
    }
    this.waiting.delete(key);
    this.inFlight.delete(key);
  }
}

interface Waiter<Item, Result> {
  item: Item;
  resolve(result: Result): void;
  reject(err: unknown): void;
}
