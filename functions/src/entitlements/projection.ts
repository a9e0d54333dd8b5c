import { FieldPath, type Query, type Timestamp, type Transaction } from 'firebase-admin/firestore';
import type { EnvScope } from '../store/scope';
import { GRANTS, grantConverter, PROJECTIONS, projectionConverter, type GrantRecord, type ProjectedEntitlement, type ProjectionDoc } from './model';
import { readAllInTx, type AnyDocumentReference, type SnapshotsOf } from '../store/converters';

/**
 * The materialised projection: one document per customer (`projections/{customerId}`) holding,
 * per entitlement key, the grant that currently decides it. It is rewritten from the
 * customer's full grant list in the same transaction as every grant change, so a read is one
 * document read and the stored document always equals a recomputation from the grants.
 */

/**
 * Per key, the winning grant among the customer's unrevoked grants: a lifetime grant beats any
 * dated one, otherwise the later `validUntil` wins; ties go to a rail over a manual source, then
 * to the most recently updated grant, then to the smaller grant id, so the result is
 * deterministic. Lapsed grants stay in (a read reports them `isActive: false`).
 *
 * The result is a pure function of the grants: `now` does not change it, which is what lets a
 * recomputation at any later time reproduce the stored projection exactly. `updatedAt` is the
 * latest change among all of the key's grants (a revoke of a losing grant counts as a change).
 */
export function projectEntitlements(grants: readonly GrantRecord[], now: number): Record<string, ProjectedEntitlement> {
  void now;
  const winners = new Map<string, GrantRecord>();
  const lastChange = new Map<string, number>();
  for (const grant of grants) {
    const key = grant.entitlementKey;
    lastChange.set(key, Math.max(lastChange.get(key) ?? 0, grant.updatedAt, grant.revokedAt ?? 0));
    if (grant.revokedAt !== null) continue;
    const current = winners.get(key);
    if (!current || beats(grant, current)) winners.set(key, grant);
  }
  const out: Record<string, ProjectedEntitlement> = {};
  for (const key of [...winners.keys()].sort()) {
    const grant = winners.get(key)!;
    out[key] = {
      key,
      validUntil: grant.validUntil,
      source: { rail: grant.source.rail, productId: grant.source.productId, subscriptionId: grant.source.subscriptionId },
      updatedAt: lastChange.get(key)!,
    };
  }
  return out;
}

/** Whether `a` should decide the key instead of `b`. */
function beats(a: GrantRecord, b: GrantRecord): boolean {
  const endA = a.validUntil ?? Number.POSITIVE_INFINITY;
  const endB = b.validUntil ?? Number.POSITIVE_INFINITY;
  if (endA !== endB) return endA > endB;
  const railA = a.source.rail !== 'manual';
  const railB = b.source.rail !== 'manual';
  if (railA !== railB) return railA;
  if (a.updatedAt !== b.updatedAt) return a.updatedAt > b.updatedAt;
  return a.grantId < b.grantId;
}

/** Every grant of one customer (revoked ones included), read inside the transaction. */
export async function readCustomerGrants(tx: Transaction, scope: EnvScope, customerId: string): Promise<GrantRecord[]> {
  const snapshot = await tx.get(grantsCollection(scope).where('customerId', '==', customerId));
  return snapshot.docs.map((doc) => doc.data());
}

/**
 * Every grant of one customer, read beside a transaction that has ALREADY read the customer's
 * projection. Every grant change rewrites the projection in its own transaction, so that read
 * guards this list: a change committed before it is in the list, and a change that would
 * commit after it must wait for this transaction (pessimistic locks) or makes its commit fail
 * and retry (optimistic). Unlike a query inside the transaction it takes no range lock over
 * the grants collection, which the emulator shares between customers (8 parallel migration
 * rows of different customers took 2–7 s each on it instead of 60 ms).
 */
export async function readCustomerGrantsGuarded(scope: EnvScope, customerId: string): Promise<GrantRecord[]> {
  return (await readCustomerGrantsAt(scope, customerId)).grants;
}

/**
 * Every grant of one customer, outside any transaction, with the time the store read them at
 * (a later transaction can tell from the projection's update time whether a grant changed
 * since: rails/grantsReadAhead.ts).
 */
export async function readCustomerGrantsAt(scope: EnvScope, customerId: string): Promise<{ grants: GrantRecord[]; readTime: Timestamp }> {
  const snapshot = await scope.query(grantsCollection(scope).where('customerId', '==', customerId));
  return { grants: snapshot.docs.map((doc) => doc.data()), readTime: snapshot.readTime };
}

/** Every grant of several customers (a merge), read inside the transaction. */
export async function readGrantsOfCustomers(tx: Transaction, scope: EnvScope, customerIds: readonly string[]): Promise<GrantRecord[]> {
  const snapshot = await tx.get(grantsCollection(scope).where('customerId', 'in', customerIds));
  return snapshot.docs.map((doc) => doc.data());
}

/**
 * References for READING a projection or a grant. Writes go through `applyGrantChanges`
 * (writer.ts) only, which keeps the projection, the grants and the change records together.
 */
export const projectionRef = (scope: EnvScope, customerId: string) => scope.doc(PROJECTIONS, customerId).withConverter(projectionConverter);

/** Projections holding a list facet (listFacets.ts), by customer id: the dashboard list's entitlement and rail filters. */
export const projectionsWithFacet = (scope: EnvScope, facet: string): Query<ProjectionDoc> => scope.collection(PROJECTIONS).withConverter(projectionConverter).where('listFacets', 'array-contains', facet).orderBy(FieldPath.documentId());
export const grantRef = (scope: EnvScope, grantId: string) => scope.doc(GRANTS, grantId).withConverter(grantConverter);
const grantsCollection = (scope: EnvScope) => scope.collection(GRANTS).withConverter(grantConverter);

/** `tx.getAll` of several documents (one round trip, counted by the transaction proxy in store/counted.ts). */
export async function getAllInTx<Refs extends AnyDocumentReference[]>(tx: Transaction, scope: EnvScope, refs: [...Refs]): Promise<SnapshotsOf<Refs>> {
  return readAllInTx(tx, ...refs);
}
