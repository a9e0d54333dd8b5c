import { KeyedQueue } from '../store/keyedQueue';

/**
 * Runs a request's rows several at a time while keeping, between rows that share an identifier,
 * the order of the request: a row waits for every earlier row naming any of its keys (a later
 * duplicate of a user id or a rail id sees what the earlier row did, exactly as row-by-row
 * processing would), and rows without a shared key run side by side, at most `concurrency` at
 * once (a bound on the store's and the card processor's concurrent calls).
 *
 * `work` must not throw: a row's failure is its own result (service.ts reports it).
 */
export async function runRowsInTurn<T>(
  items: readonly T[],
  keysOf: (item: T) => readonly string[],
  concurrency: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  // A queue of this call alone: FIFO per key, joined in item order by the pool below.
  const turns = new KeyedQueue();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next];
      next += 1;
      await turns.run(keysOf(item), () => work(item));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}
