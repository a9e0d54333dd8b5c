import { isStoreContention } from '../store/contention';
import { OperatorError } from './operatorError';

/**
 * What a failed command prints: an operator error as it is; a store refusal in words, never the
 * store's raw message (`10 ABORTED: Transaction lock timeout.` tells an operator nothing they can
 * act on, and a raw store error must not reach any answer); anything else by its message.
 */
export function describeFailure(err: unknown): { code: string; message: string } {
  if (err instanceof OperatorError) return { code: err.code, message: err.message };
  if (isStoreContention(err)) {
    return { code: 'store_busy', message: 'The store is busy with other changes to the same records and nothing was changed; try again in a moment.' };
  }
  if (isStoreError(err)) {
    return { code: 'store_unavailable', message: 'The store refused the request; check that Firestore (or the emulator named by FIRESTORE_EMULATOR_HOST) is reachable, then try again.' };
  }
  return { code: 'error', message: err instanceof Error ? err.message : String(err) };
}

/** A gRPC failure from the store's client: a numeric status code and its `details`. */
function isStoreError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, details } = err as { code?: unknown; details?: unknown };
  return typeof code === 'number' && code > 0 && code <= 16 && typeof details === 'string';
}
