import { CUSTOMER_ID_PREFIX, type IdentityKind } from '../customers/model';
import { linkHints } from '../identity/repository';
import { customerRef, identityRef } from '../customers/refs';
import type { EnvScope } from '../store/scope';

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

export async function resolveRailCustomer(scope: EnvScope, hints: RailCustomerHints, now: number): Promise<string | null> {
  const all: RailIdentity[] = hints.rail.filter((hint) => hint.id !== '');
  if (hints.developerUserId) all.push({ kind: 'developer', id: hints.developerUserId });
  const anchor = hints.namedCustomerId ? await anchorOf(scope, hints.namedCustomerId) : null;
  if (anchor) all.push(anchor);
  if (all.length === 0) return null;
  const known = await linkedCustomer(scope, all);
  if (known) return known;
  const { customerId } = await linkHints(scope, all, 'rail', now);
  return customerId;
}

/**
 * The usual case (a renewal): every identifier already links to one active customer, which two
 * direct reads confirm without the identity repository's linking transaction.
 */
async function linkedCustomer(scope: EnvScope, hints: RailIdentity[]): Promise<string | null> {
  const entries = await scope.getAll(...hints.map((hint) => identityRef(scope, hint.kind, hint.id)));
  if (entries.some((entry) => !entry.exists)) return null;
  const ids = new Set(entries.map((entry) => entry.data()!.customerId));
  if (ids.size !== 1) return null;
  const [customerId] = ids;
  const customer = await scope.get(customerRef(scope, customerId));
  return customer.exists && customer.data()!.status === 'active' ? customerId : null;
}

/** One identifier of an existing, active customer (its developer user id when it has one). */
async function anchorOf(scope: EnvScope, customerId: string): Promise<RailIdentity | null> {
  if (!customerId.startsWith(CUSTOMER_ID_PREFIX) || customerId.length > 128 || customerId.includes('/')) return null;
  const snapshot = await scope.get(customerRef(scope, customerId));
  if (!snapshot.exists) return null;
  const customer = snapshot.data()!;
  if (customer.status !== 'active' || customer.identities.length === 0) return null;
  return customer.identities.find((identity) => identity.kind === 'developer') ?? customer.identities[0];
}
