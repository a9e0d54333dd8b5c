import { isLostTransaction } from './contention';

const MAX_ROUNDS = 8;

/**
 * Runs `transaction` (a whole `runTransaction` call) again, after a short random pause, while it
 * ends in an error `isRetryable` accepts, at most MAX_ROUNDS times; any other error propagates
 * at once. For writers that race on one document by design (identity documents, an endpoint
 * limit's guard).
 */
export async function retryingTransaction<T>(transaction: () => Promise<T>, isRetryable: (err: unknown) => boolean = isLostTransaction): Promise<T> {
  for (let round = 1; ; round += 1) {
    try {
      return await transaction();
    } catch (err) {
      if (round >= MAX_ROUNDS || !isRetryable(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * round));
    }
  }
}
