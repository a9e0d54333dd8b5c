import type { DocumentReference, DocumentSnapshot } from 'firebase-admin/firestore';
import { projectionRef } from '../entitlements/projection';
import type { ProjectionDoc } from '../entitlements/model';
import type { EnvScope } from '../store/scope';
import { type CustomerRecord, type IdentityIndexEntry, type IdentityKind } from '../customers/model';
import { customerRef, identityRef } from '../customers/refs';

export interface CustomerView {
  customerId: string;
  customer: CustomerRecord | null;
  projection: ProjectionDoc | null;
}

const data = <T>(snapshot: DocumentSnapshot<T>): T | null => snapshot.data() ?? null;

/**
 * The read path of entitlements: hint → customer → projection, in at most two round trips
 * (the first carries the API-key re-check). A customer merged into another is followed once.
 */
export async function readByCustomerId(scope: EnvScope, customerId: string): Promise<CustomerView | null> {
  const [customerSnap, projectionSnap] = await scope.getAll(customerRef(scope, customerId), projectionRef(scope, customerId));
  const customer = data(customerSnap);
  if (!customer) return null;
  if (customer.status === 'merged' && customer.mergedInto) {
    const [canonicalSnap, canonicalProjection] = await scope.getAll(customerRef(scope, customer.mergedInto), projectionRef(scope, customer.mergedInto));
    return { customerId: customer.mergedInto, customer: data(canonicalSnap), projection: data(canonicalProjection) };
  }
  return { customerId, customer, projection: data(projectionSnap) };
}

/**
 * Identifier → customer id (one read) → projection (one read). The customer record is not read.
 * `guard` may add documents to the first read and refuse the entry (then: unknown, null).
 */
export async function readProjectionByIdentity<Alongside>(
  scope: EnvScope,
  kind: IdentityKind,
  id: string,
  guard?: { alongside: DocumentReference<Alongside>[]; admits(entry: IdentityIndexEntry, alongside: DocumentSnapshot<Alongside>[]): boolean },
): Promise<{ customerId: string; projection: ProjectionDoc | null } | null> {
  const [entrySnap, ...alongside] = await scope.getAll(identityRef(scope, kind, id), ...(guard?.alongside ?? []));
  const entry = data(entrySnap);
  if (!entry) return null;
  if (guard && !guard.admits(entry, alongside)) return null;
  const [projectionSnap] = await scope.getAll(projectionRef(scope, entry.customerId));
  return { customerId: entry.customerId, projection: data(projectionSnap) };
}
