import { CUSTOMER_ID } from '../ids';
import type { AuditEntry } from '../audit/model';
import { auditRef } from '../audit/append';
import { identityDocId, newCustomerId, type IdentityKind } from '../customers/model';
import { linkHints } from '../identity/repository';
import { customerRef, identityRef } from '../customers/refs';
import { splitGroups } from '../store/converters';
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

/**
 * What the decision's transaction must find for the customer resolved from direct reads
 * outside it (else it throws RailCustomerMoved and the caller resolves again with `relink`):
 * - `create`: none of the identifiers was known: the transaction reads their index entries,
 *   and, all still absent, creates the customer and its entries with the decision, as the
 *   identity repository would for unknown hints (identity/freshCustomers.ts);
 * - `active`: every identifier pointed at this customer: it must still be active.
 */
export type RailCustomerCheck = { kind: 'create'; identities: RailIdentity[] } | { kind: 'active' };

/** The resolved customer. */
export interface RailCustomer {
  customerId: string;
  /** Every identifier the purchase names was already linked to this customer (nothing was linked now). */
  allLinkedBefore: boolean;
  /** Null: resolved by the identity repository's link transaction (already committed). */
  check: RailCustomerCheck | null;
}

/** The customer, and the event's audit entry when it was read with the identifiers and exists (a duplicate delivery). */
export interface RailResolution {
  customer: RailCustomer | null;
  audited: AuditEntry | null;
}

/** The customer resolved before the decision was not what its transaction found: resolve it again with `relink`. */
export class RailCustomerMoved extends Error {
  constructor() {
    super('the identifiers or the customer resolved before the decision changed before its transaction');
    this.name = 'RailCustomerMoved';
  }
}

export interface RailCustomerOptions {
  now: number;
  /** The event's id: its audit entry is read with the identifiers (no extra round trip). */
  eventId?: string;
  /** Resolve through the identity repository's link transaction (after RailCustomerMoved). */
  relink?: boolean;
}

export async function resolveRailCustomer(scope: EnvScope, hints: RailCustomerHints, options: RailCustomerOptions): Promise<RailResolution> {
  const all: RailIdentity[] = uniqueIdentities(hints.rail);
  if (hints.developerUserId) all.push(...uniqueIdentities([{ kind: 'developer', id: hints.developerUserId }], all));
  const anchor = hints.namedCustomerId ? await anchorOf(scope, hints.namedCustomerId) : null;
  if (anchor) all.push(...uniqueIdentities([anchor], all));
  if (all.length === 0) return { customer: null, audited: null };
  if (!options.relink) {
    const read = await readAhead(scope, all, options.eventId);
    if (read.audited || read.customer) return read;
  }
  const { customerId } = await linkHints(scope, all, 'rail', options.now);
  return { customer: customerId ? { customerId, allLinkedBefore: false, check: null } : null, audited: null };
}

/**
 * One read of every identifier's index entry (and of the event's audit entry). Every entry
 * pointing at one customer: that customer (the usual renewal). None known: a new customer,
 * created by the decision's transaction. Anything else (some known, several customers): null,
 * for the identity repository's link transaction, which applies the conflict rules.
 */
async function readAhead(scope: EnvScope, identities: RailIdentity[], eventId: string | undefined): Promise<RailResolution> {
  const identityRefs = identities.map((identity) => identityRef(scope, identity.kind, identity.id));
  const auditRefs = eventId ? [auditRef(scope, eventId)] : [];
  const [audits, entries] = splitGroups<[typeof auditRefs, typeof identityRefs]>([auditRefs, identityRefs], await scope.getAll(...auditRefs, ...identityRefs));
  if (audits[0]?.exists) return { customer: null, audited: audits[0].data()! };
  if (entries.every((entry) => !entry.exists)) return { customer: { customerId: newCustomerId(), allLinkedBefore: false, check: { kind: 'create', identities } }, audited: null };
  if (entries.some((entry) => !entry.exists)) return { customer: null, audited: null };
  const ids = new Set(entries.map((entry) => entry.data()!.customerId));
  if (ids.size !== 1) return { customer: null, audited: null };
  const [customerId] = ids;
  return { customer: { customerId, allLinkedBefore: true, check: { kind: 'active' } }, audited: null };
}

/** Identities with an id, each once (a second hint naming the same index entry adds nothing). */
function uniqueIdentities(identities: RailIdentity[], already: RailIdentity[] = []): RailIdentity[] {
  const seen = new Set(already.map((identity) => identityDocId(identity.kind, identity.id)));
  return identities.filter((identity) => {
    const docId = identityDocId(identity.kind, identity.id);
    if (identity.id === '' || seen.has(docId)) return false;
    seen.add(docId);
    return true;
  });
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
