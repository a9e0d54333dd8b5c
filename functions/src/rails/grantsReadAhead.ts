import type { DocumentSnapshot } from 'firebase-admin/firestore';
import type { GrantRecord } from '../entitlements/model';
import { projectionRef, readCustomerGrantsGuarded } from '../entitlements/projection';
import type { EnvScope } from '../store/scope';

/**
 * A customer's grants read before the decision's transaction, with the version of the
 * projection they were read under. Every grant change rewrites the projection in its own
 * transaction (entitlements/projection.ts), so when the transaction finds the projection at
 * that same version the list is still exact and the in-transaction query (whose range lock
 * makes concurrent decisions about different customers wait on one another) is not needed;
 * when the version moved, the transaction queries again. Taken where the customer is resolved
 * (rails/customers.ts: with the customer's own read, or empty for a customer minted by this
 * request), else by the decision itself.
 */
export interface GrantsReadAhead {
  customerId: string;
  projectionVersion: string | null;
  grants: GrantRecord[];
}

/** The projection's update time (null while it does not exist). */
export const projectionVersionOf = (snapshot: DocumentSnapshot): string | null =>
  snapshot.exists ? `${snapshot.updateTime?.seconds}.${snapshot.updateTime?.nanoseconds}` : null;

/**
 * The grants of a customer whose projection `projection` was read just now. Projection first:
 * a grant committed after that read moves the version the transaction checks.
 */
export async function grantsAfterProjection(scope: EnvScope, customerId: string, projection: DocumentSnapshot): Promise<GrantsReadAhead> {
  const grants = await readCustomerGrantsGuarded(scope, customerId);
  return { customerId, projectionVersion: projectionVersionOf(projection), grants };
}

/** Both reads, for a customer resolved without them (two round trips). */
export async function readGrantsAhead(scope: EnvScope, customerId: string): Promise<GrantsReadAhead> {
  return grantsAfterProjection(scope, customerId, await scope.get(projectionRef(scope, customerId)));
}

/**
 * A customer this request has just created: no grant can name it before its id is known, and
 * any later grant change would create its projection (so the transaction would see a version).
 */
export const newCustomerReadAhead = (customerId: string): GrantsReadAhead => ({ customerId, projectionVersion: null, grants: [] });
