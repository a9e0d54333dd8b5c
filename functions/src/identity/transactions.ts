import type { Transaction } from 'firebase-admin/firestore';
import { isAlreadyExists, isLostTransaction } from '../store/contention';
import type { EnvScope } from '../store/scope';
import { retryingTransaction } from '../store/transactionRetry';

/**
 * Runs a transaction, retrying beyond the SDK's own attempts when concurrent writers race on
 * the same identity documents (many parallel identify calls for one new user). A lost
 * `create()` surfaces as ALREADY_EXISTS; the next round reads the winner's document and links
 * to it instead. Non-retryable errors (including the caller's own) propagate at once.
 */
export function runIdentityTransaction<T>(scope: EnvScope, fn: (tx: Transaction) => Promise<T>): Promise<T> {
  return retryingTransaction(() => scope.runTransaction(fn), (err) => isAlreadyExists(err) || isLostTransaction(err));
}
