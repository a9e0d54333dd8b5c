import type { DocumentSnapshot, Timestamp } from 'firebase-admin/firestore';
import type { GrantRecord } from '../entitlements/model';
import { readCustomerGrantsAt } from '../entitlements/projection';
import type { EnvScope } from '../store/scope';

/**
 * A customer's grants read before the decision's transaction, with the time they were read at.
 * Every grant change rewrites the customer's projection in the same commit
 * (entitlements/writer.ts), so the projection's update time is the commit time of its latest
 * grant change: when the transaction finds it earlier than the read time, every grant change
 * was committed before the read and the list is exact, and the in-transaction query (whose
 * range lock makes concurrent decisions about different customers wait on one another) is not
 * needed; otherwise the transaction queries again. Projections are never deleted, so a missing
 * projection means no grant change ever happened.
 */
export interface GrantsReadAhead {
  customerId: string;
  /** When the list was read (null: nothing was read, see newCustomerReadAhead). */
  readTime: Timestamp | null;
  grants: GrantRecord[];
}

/** One query, no projection read: the transaction's own read of the projection checks it (isReadAheadExact). */
export async function readGrantsAhead(scope: EnvScope, customerId: string): Promise<GrantsReadAhead> {
  const { grants, readTime } = await readCustomerGrantsAt(scope, customerId);
  return { customerId, readTime, grants };
}

/**
 * A customer this request creates: no grant can name it before its id is known, and any grant
 * change would create its projection (which the transaction would then see).
 */
export const newCustomerReadAhead = (customerId: string): GrantsReadAhead => ({ customerId, readTime: null, grants: [] });

/**
 * Whether the list still holds, given the customer's projection as the transaction read it.
 * Strictly earlier: a commit at the very read time is not assumed to be in the list.
 */
export function isReadAheadExact(readAhead: GrantsReadAhead, projection: DocumentSnapshot): boolean {
  if (!projection.exists) return readAhead.grants.length === 0;
  const { updateTime } = projection;
  return readAhead.readTime !== null && updateTime !== undefined && updateTime.valueOf() < readAhead.readTime.valueOf();
}
