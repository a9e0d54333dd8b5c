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

  submit(key: string, item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      const queue = this.waiting.get(key) ?? [];
      queue.push({ item, resolve, reject });
      this.waiting.set(key, queue);
      if (!this.inFlight.has(key)) void this.next(key);
    });
  }

  /** Runs rounds for the key until nobody is waiting. */
  private async next(key: string): Promise<void> {
    this.inFlight.add(key);
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
