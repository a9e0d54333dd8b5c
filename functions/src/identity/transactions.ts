import type { Transaction } from 'firebase-admin/firestore';
import { ABORTED, CLOSED_TRANSACTION, INVALID_ARGUMENT, isAlreadyExists } from '../store/contention';
import type { EnvScope } from '../store/scope';

/**
 * What a racing writer produces: ABORTED (contention), ALREADY_EXISTS (a lost create()), and the
 * emulator's end of a transaction it chose as a deadlock victim.
 */
function isRetryable(err: unknown): boolean {
  if (isAlreadyExists(err)) return true;
  const { code, message } = err as { code?: unknown; message?: unknown };
  return code === ABORTED || (code === INVALID_ARGUMENT && typeof message === 'string' && CLOSED_TRANSACTION.test(message));
}
const MAX_ROUNDS = 8;

/**
 * Runs a transaction, retrying beyond the SDK's own attempts when concurrent writers race on
 * the same identity documents (many parallel identify calls for one new user). A lost
 * `create()` surfaces as ALREADY_EXISTS; the next round reads the winner's document and links
 * to it instead. Non-retryable errors (including the caller's own) propagate at once.
 */
export async function runIdentityTransaction<T>(scope: EnvScope, fn: (tx: Transaction) => Promise<T>): Promise<T> {
  for (let round = 1; ; round += 1) {
    try {
      return await scope.runTransaction(fn);
    } catch (err) {
      if (round >= MAX_ROUNDS || !isRetryable(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * round));
    }
  }
}
