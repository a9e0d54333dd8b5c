import type { DocumentSnapshot, Transaction } from 'firebase-admin/firestore';
import type { EnvScope } from '../store/scope';
import type { Assurance, Hint } from './link';
import { type CustomerRecord, type IdentityIndexEntry } from '../customers/model';
import { customerRef } from '../customers/refs';
import { mergeTraits, type Traits } from './traits';

/**
 * Creation of customers for identifier sets none of which is known yet (a migration's new
 * users; a rail notification's new subscriber, with its decision: rails/decision.ts), inside
 * the caller's transaction, after its reads. What `linkIdentities` does in its
 * "no hint known" case, for many sets in one transaction: one customer each, and one index entry
 * per identifier with `create()`, so an identifier claimed meanwhile by another writer fails the
 * whole transaction instead of being linked twice (the caller then links those rows one by one).
 *
 * The caller passes the snapshots of the identifiers' index documents read in this transaction;
 * a set with any identifier already indexed is not created (`false`): it is not new.
 */
export interface FreshCustomerInput {
  hints: readonly Hint[];
  /** The index documents of `hints`, in the same order, read in the caller's transaction. */
  indexSnapshots: readonly DocumentSnapshot[];
  profile: { email: string | null; traits: Traits };
}

/** Creates the customer `customerId` (a fresh `newCustomerId()`) unless an identifier is known; false then. */
export function createFreshCustomer(tx: Transaction, scope: EnvScope, customerId: string, input: FreshCustomerInput, assurance: Assurance, now: number): boolean {
  if (input.indexSnapshots.some((snapshot) => snapshot.exists)) return false;
  input.hints.forEach((hint, i) => {
    const entry: IdentityIndexEntry = { kind: hint.kind, id: hint.id, customerId, assurance, createdAt: now, updatedAt: now };
    tx.create(input.indexSnapshots[i].ref, entry);
  });
  const record: CustomerRecord = {
    customerId,
    createdAt: now,
    updatedAt: now,
    email: input.profile.email,
    traits: mergeTraits({}, input.profile.traits),
    identities: input.hints.map(({ kind, id }) => ({ kind, id })),
    status: 'active',
  };
  tx.create(customerRef(scope, customerId), record);
  return true;
}
