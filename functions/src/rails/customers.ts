import { CUSTOMER_ID } from '../ids';
import type { IdentityKind } from '../customers/model';
import { projectionRef } from '../entitlements/projection';
import { linkHints } from '../identity/repository';
import { customerRef, identityRef } from '../customers/refs';
import type { EnvScope } from '../store/scope';
import { grantsAfterProjection, newCustomerReadAhead, type GrantsReadAhead } from './grantsReadAhead';

/**
 * The customer a rail purchase belongs to, through the identity repository: rail identifiers
 * first (originalTransactionId, Stripe customer id, Play purchase token: stable across
 * renewals), then what the purchase names (a developer user id, or a Tessera customer id the
 * app put in checkout metadata or the obfuscated account id). Unknown everywhere: a customer is
 * created for the rail identifiers (identify or migration link a user to it later). Conflicts are
 * queued for review by the repository, never merged.
 */
export interface RailIdentity {
  kind: IdentityKind;
  id: string;
}

export interface RailCustomerHints {
  rail: RailIdentity[];
  developerUserId?: string | null;
  /** A `cdcust_…` id the purchase carries; anchored through one of that customer's own identifiers. */
  namedCustomerId?: string | null;
}

/**
 * The resolved customer, with its grants when resolving read them at no extra round trip (the
 * projection read beside the customer's, or nothing to read for a customer created now): the
 * decision then skips its own read-ahead (rails/grantsReadAhead.ts).
 */
export interface RailCustomer {
  customerId: string;
  grantsReadAhead: GrantsReadAhead | null;
  /** Every identifier the purchase names was already linked to this customer (nothing was linked now). */
  allLinkedBefore: boolean;
}

export async function resolveRailCustomer(scope: EnvScope, hints: RailCustomerHints, now: number): Promise<RailCustomer | null> {
  const all: RailIdentity[] = hints.rail.filter((hint) => hint.id !== '');
  if (hints.developerUserId) all.push({ kind: 'developer', id: hints.developerUserId });
  const anchor = hints.namedCustomerId ? await anchorOf(scope, hints.namedCustomerId) : null;
  if (anchor) all.push(anchor);
  if (all.length === 0) return null;
  const known = await linkedCustomer(scope, all);
  if (known) return known;
  const { customerId, created } = await linkHints(scope, all, 'rail', now);
  if (!customerId) return null;
  return { customerId, grantsReadAhead: created ? newCustomerReadAhead(customerId) : null, allLinkedBefore: false };
}

/**
 * The usual case (a renewal): every identifier already links to one active customer, which two
 * direct reads confirm without the identity repository's linking transaction; the second also
 * reads the customer's projection, under which its grants are read for the decision.
 */
async function linkedCustomer(scope: EnvScope, hints: RailIdentity[]): Promise<RailCustomer | null> {
  const entries = await scope.getAll(...hints.map((hint) => identityRef(scope, hint.kind, hint.id)));
  if (entries.some((entry) => !entry.exists)) return null;
  const ids = new Set(entries.map((entry) => entry.data()!.customerId));
  if (ids.size !== 1) return null;
  const [customerId] = ids;
  const [customer, projection] = await scope.getAll(customerRef(scope, customerId), projectionRef(scope, customerId));
  if (customer.data()?.status !== 'active') return null;
  return { customerId, grantsReadAhead: await grantsAfterProjection(scope, customerId, projection), allLinkedBefore: true };
}

/** One identifier of an existing, active customer (its developer user id when it has one). */
async function anchorOf(scope: EnvScope, customerId: string): Promise<RailIdentity | null> {
  if (!CUSTOMER_ID.is(customerId)) return null;
  const snapshot = await scope.get(customerRef(scope, customerId));
  if (!snapshot.exists) return null;
  const customer = snapshot.data()!;
  if (customer.status !== 'active' || customer.identities.length === 0) return null;
  return customer.identities.find((identity) => identity.kind === 'developer') ?? customer.identities[0];
}
