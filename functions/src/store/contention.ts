import { QueueFullError } from './keyedQueue';

/**
 * Whether an error is the store refusing work because of contention, after every retry of the
 * transaction: the caller should come back shortly (`429 rate_limited` with `Retry-After`),
 * nothing about its request was wrong and nothing was written.
 *
 * - ABORTED (10): a transaction that lost a lock or timed out waiting for one
 *   (`Transaction lock timeout` on the emulator);
 * - RESOURCE_EXHAUSTED (8): too much contention on a document or a quota hit;
 * - INVALID_ARGUMENT (3) `Transaction is invalid or closed`: the emulator ended the transaction
 *   (chosen as a deadlock victim, or expired while it waited);
 * - the per-instance write queue of one key is full (`QueueFullError`).
 */
export const ABORTED = 10;
export const RESOURCE_EXHAUSTED = 8;
export const INVALID_ARGUMENT = 3;
/** A `create()` found its document: another writer got there first (a lost race, not a fault). */
export const ALREADY_EXISTS = 6;
/** A write's precondition (`lastUpdateTime`, `exists`) no longer holds: another writer changed the document. */
export const FAILED_PRECONDITION = 9;
export const CLOSED_TRANSACTION = /Transaction is invalid or closed/;

export function isStoreContention(err: unknown): boolean {
  if (err instanceof QueueFullError) return true;
  if (isLostTransaction(err)) return true;
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === RESOURCE_EXHAUSTED;
}

/**
 * Whether a transaction ended because it lost to a concurrent one, after the client's own
 * retries: ABORTED (contention), or the emulator's `Transaction is invalid or closed` when it
 * picks the transaction as a deadlock victim (which the client does not retry). Running the
 * transaction again is what the client itself does on ABORTED (store/transactionRetry.ts).
 */
export function isLostTransaction(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  return code === ABORTED || (code === INVALID_ARGUMENT && typeof message === 'string' && CLOSED_TRANSACTION.test(message));
}

/** Whether a commit failed because a `create()` in it found its document already there. */
export function isAlreadyExists(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === ALREADY_EXISTS;
}

/** Seconds a client is told to wait before retrying work the store refused (a few lock waits). */
export const CONTENTION_RETRY_AFTER_SECONDS = 1;
