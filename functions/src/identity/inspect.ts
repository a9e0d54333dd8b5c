import type { Firestore } from 'firebase-admin/firestore';
import { DomainError } from '../errors/domain';
import type { ProjectionDoc, PublicEntitlement } from '../entitlements/model';
import { projectionRef } from '../entitlements/projection';
import { toPublicEntitlements } from '../entitlements/publicShape';
import type { Env } from '../store/env';
import { EnvScope } from '../store/scope';
import { IDENTITY_CONFLICTS, type ConflictRecord } from './conflictModel';
import { IDENTITY_INDEX, type CustomerRecord, type IdentityIndexEntry, type IdentityKind } from '../customers/model';
import { customerRef, identityRef } from '../customers/refs';

export type CustomerLookup = { customerId: string } | { kind: IdentityKind; id: string };

export interface CustomerInspection {
  customer: CustomerRecord;
  identityLinks: Pick<IdentityIndexEntry, 'kind' | 'id' | 'assurance' | 'createdAt' | 'updatedAt' | 'verifiedAt' | 'movedFrom'>[];
  entitlements: PublicEntitlement[];
  openConflicts: string[];
}

/** Everything an operator needs to see about one customer (`tessera customers show`). */
export async function inspectCustomer(db: Firestore, projectId: string, env: Env, lookup: CustomerLookup, now: number): Promise<CustomerInspection> {
  const scope = new EnvScope(db, projectId, env);
  let customerId: string;
  if ('customerId' in lookup) {
    customerId = lookup.customerId;
  } else {
    const entry = await identityRef(scope, lookup.kind, lookup.id).get();
    if (!entry.exists) throw new DomainError('not_found', `No customer with ${lookup.kind} identifier ${lookup.id} in ${projectId}/${env}.`);
    customerId = (entry.data() as IdentityIndexEntry).customerId;
  }
  const [customerSnap, projectionSnap] = await db.getAll(customerRef(scope, customerId), projectionRef(scope, customerId));
  if (!customerSnap.exists) throw new DomainError('not_found', `No customer ${customerId} in ${projectId}/${env}.`);
  const [entries, asCanonical, asOther] = await Promise.all([
    scope.collection(IDENTITY_INDEX).where('customerId', '==', customerId).get(),
    scope.collection(IDENTITY_CONFLICTS).where('canonicalCustomerId', '==', customerId).where('status', '==', 'open').get(),
    scope.collection(IDENTITY_CONFLICTS).where('otherCustomerIds', 'array-contains', customerId).get(),
  ]);
  const conflicts = [...asCanonical.docs, ...asOther.docs].map((d) => d.data() as ConflictRecord).filter((c) => c.status === 'open');
  return {
    customer: customerSnap.data() as CustomerRecord,
    identityLinks: entries.docs
      .map((d) => d.data() as IdentityIndexEntry)
      .map(({ kind, id, assurance, createdAt, updatedAt, verifiedAt, movedFrom }) => ({ kind, id, assurance, createdAt, updatedAt, verifiedAt, movedFrom }))
      .sort((a, b) => a.createdAt - b.createdAt || a.kind.localeCompare(b.kind) || a.id.localeCompare(b.id)),
    entitlements: toPublicEntitlements(projectionSnap.exists ? (projectionSnap.data() as ProjectionDoc) : null, now),
    openConflicts: [...new Set(conflicts.map((c) => c.conflictId))],
  };
}
