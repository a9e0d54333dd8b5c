import { ABORTED, CLOSED_TRANSACTION, INVALID_ARGUMENT } from './contention';

/**
 * Whether a transaction ended because it lost to a concurrent one, after the client's own
 * retries: ABORTED (contention), or the emulator's `Transaction is invalid or closed` when it
 * picks the transaction as a deadlock victim (which the client does not retry). Running the
 * transaction again is what the client itself does on ABORTED.
 */
export function isLostTransaction(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  return code === ABORTED || (code === INVALID_ARGUMENT && typeof message === 'string' && CLOSED_TRANSACTION.test(message));
}

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
