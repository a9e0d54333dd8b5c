import { DomainError } from '../errors/domain';
import type { PublicEntitlement } from '../entitlements/model';
import { projectionRef } from '../entitlements/projection';
import { toPublicEntitlements } from '../entitlements/publicShape';
import { EnvScope } from '../store/scope';
import type { CustomerRecord, IdentityIndexEntry, IdentityKind } from '../customers/model';
import { customerRef, identityIndexCollection, identityRef } from '../customers/refs';
import { conflictsCollection } from './conflictModel';

export type CustomerLookup = { customerId: string } | { kind: IdentityKind; id: string };

export interface CustomerInspection {
  customer: CustomerRecord;
  identityLinks: Pick<IdentityIndexEntry, 'kind' | 'id' | 'assurance' | 'createdAt' | 'updatedAt' | 'verifiedAt' | 'movedFrom'>[];
  entitlements: PublicEntitlement[];
  openConflicts: string[];
}

/** Everything an operator needs to see about one customer (`tessera customers show`). */
export async function inspectCustomer(scope: EnvScope, lookup: CustomerLookup, now: number): Promise<CustomerInspection> {
  const { projectId, env } = scope;
  let customerId: string;
  if ('customerId' in lookup) {
    customerId = lookup.customerId;
  } else {
    const entry = await scope.get(identityRef(scope, lookup.kind, lookup.id));
    if (!entry.exists) throw new DomainError('not_found', `No customer with ${lookup.kind} identifier ${lookup.id} in ${projectId}/${env}.`);
    customerId = entry.data()!.customerId;
  }
  const [customerSnap, projectionSnap] = await scope.getAll(customerRef(scope, customerId), projectionRef(scope, customerId));
  if (!customerSnap.exists) throw new DomainError('not_found', `No customer ${customerId} in ${projectId}/${env}.`);
  const [entries, asCanonical, asOther] = await Promise.all([
    scope.query(identityIndexCollection(scope).where('customerId', '==', customerId)),
    scope.query(conflictsCollection(scope).where('canonicalCustomerId', '==', customerId).where('status', '==', 'open')),
    scope.query(conflictsCollection(scope).where('otherCustomerIds', 'array-contains', customerId)),
  ]);
  const conflicts = [...asCanonical.docs, ...asOther.docs].map((d) => d.data()).filter((c) => c.status === 'open');
  return {
    customer: customerSnap.data()!,
    identityLinks: entries.docs
      .map((d) => d.data())
      .map(({ kind, id, assurance, createdAt, updatedAt, verifiedAt, movedFrom }) => ({ kind, id, assurance, createdAt, updatedAt, verifiedAt, movedFrom }))
      .sort((a, b) => a.createdAt - b.createdAt || a.kind.localeCompare(b.kind) || a.id.localeCompare(b.id)),
    entitlements: toPublicEntitlements(projectionSnap.data() ?? null, now),
    openConflicts: [...new Set(conflicts.map((c) => c.conflictId))],
  };
}
