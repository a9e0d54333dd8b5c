import type { DocumentSnapshot, Transaction } from 'firebase-admin/firestore';
import { appendAudit, auditRef } from '../audit/append';
import type { AuditEntry } from '../audit/model';
import { catalogProductRef, entitlementKeysForProduct, entitlementKeysOf, isProductId } from '../entitlements/catalog';
import { type CatalogRail } from '../wire/vocabulary';
import type { EntitlementCause } from '../entitlements/changeModel';
import type { GrantRecord, ProjectionDoc } from '../entitlements/model';
import { getAllInTx, projectionRef, readCustomerGrants } from '../entitlements/projection';
import { applyGrantChanges } from '../entitlements/writer';
import { customerRef } from '../customers/refs';
import { transferBehaviorIn } from '../identity/transferPolicy';
import { randomToken } from '../ids/random';
import { subscriptionTransferredEvent } from '../webhooks/customerEvents';
import { appendWebhookEvent } from '../webhooks/outbox';
import { directoryOf, webhookDirectoryRef, type WebhookDirectory } from '../webhooks/directory';
import type { CustomerRecord } from '../customers/model';
import type { EnvScope } from '../store/scope';
import { writeKeys, writeQueue } from '../store/writeQueue';
import type { TaskQueue } from '../tasks/queue';
import { dispatchWebhookEvents, type WebhookFanout } from '../webhooks/dispatch';
import type { RevenueFact } from '../store/rollups/revenueFacts';
import { recordRevenue, revenueClaimRefs } from '../store/rollups/revenueRollup';
import { isReadAheadExact, newCustomerReadAhead, readGrantsAhead, type GrantsReadAhead } from './grantsReadAhead';
import { RailCustomerMoved, type RailCustomer } from './customers';
import { identityDocId } from '../customers/model';
import { identityRef } from '../customers/refs';
import { createFreshCustomer } from '../identity/freshCustomers';
import { isAlreadyExists } from '../store/contention';
import { ACCESS_STATES, SUBSCRIPTION_TRANSFERRED_EVENT_TYPE, subscriptionConverter, subscriptionDocId, type SubscriptionRecord, SUBSCRIPTIONS, type SubscriptionSnapshot, type TransferReason } from './model';
import { readGroupsInTx } from '../store/converters';

/**
 * The one transaction every rail decision runs (purchase sync and the three webhooks):
 *
 * 1. the audit entry of the event id exists → a duplicate delivery: nothing changes;
 * 2. the subscription record has seen a newer event → `no_op` (`out_of_order`): older events
 *    never overwrite newer state;
 * 3. otherwise the subscription record, the customer's grants for it, the projection and one
 *    audit entry are written together, so the decision is recorded exactly when it applies.
 */
export interface RailDecisionInput {
  scope: EnvScope;
  /** Where the webhook events the decision recorded are fanned out from, after the commit. */
  tasks: TaskQueue;
  rail: CatalogRail;
  /** The rail's own event id (audit document id, de-duplication key). */
  eventId: string;
  eventType: string;
  /** The rail's subscription id (record id), or null when the event concerns none. */
  subscriptionId: string | null;
  /** The rail's time of this event (signed date, `created`, `eventTimeMillis`). */
  eventAt: number;
  /**
   * Set when the state was re-read from the provider (Stripe, Play): the time of that read.
   * Such a snapshot is current whatever the event's age, so only a newer read supersedes it;
   * without a read, an event older than the last applied one is stale.
   */
  readAt?: number;
  receivedAt: number;
  now: number;
  reconciledWithProvider: boolean;
  /**
   * The customer resolved before the transaction (rails/customers.ts); a record that already
   * has an owner keeps it (but see `claimant`). Its `check` is what the transaction must find
   * (else RailCustomerMoved: nothing is written, and the caller resolves again).
   */
  customer: RailCustomer | null;
  /**
   * The customer this verified event presents the purchase for when that may be someone other
   * than the record's owner (purchase sync: the caller; a notification: a purchaser identifier
   * it newly signs), given the stored record; null or absent: none. Whether the subscription
   * moves to it is the project's transfer setting (identity/transferPolicy.ts).
   */
  claimant?: (current: SubscriptionRecord | null) => string | null;
  /** The subscription as this event shows it, given the stored record; null: nothing to apply. */
  snapshot: (current: SubscriptionRecord | null) => SubscriptionSnapshot | null;
  /** Why nothing applies when `snapshot` gives null. */
  noSnapshotReason: string;
  /** Rail-specific record fields, given the stored record. */
  railFacts?: (current: SubscriptionRecord | null) => Pick<SubscriptionRecord, 'apple' | 'stripe' | 'google'>;
  /**
   * Money the event shows (a payment or a refund), recorded with the decision for the revenue
   * report, once per payment or refund id (reports/revenueRollup.ts); never on a duplicate delivery.
   */
  revenue?: RevenueFact | null;
  /** Extra writes of the same decision (payment index, idempotency record). */
  extraWrites?: (tx: Transaction, outcome: RailDecision) => void;
  details?: Record<string, unknown>;
}

export interface RailDecision {
  /** The event was recorded before: this delivery changed nothing. */
  duplicate: boolean;
  decision: AuditEntry['decision'];
  reason: string;
  customerId: string | null;
  fromState: string | null;
  toState: string | null;
  /** The customer's projection after the decision (null without a customer). */
  projection: ProjectionDoc | null;
  /** Fan-outs of the webhook events recorded with the decision (already dispatched by `decideRailEvent`). */
  webhookFanouts: WebhookFanout[];
  /** Set when this decision moved the subscription from another customer (audited, webhook sent). */
  transferredFrom?: string;
}

export const subscriptionRef = (scope: EnvScope, rail: CatalogRail, subscriptionId: string) => scope.doc(SUBSCRIPTIONS, subscriptionDocId(rail, subscriptionId)).withConverter(subscriptionConverter);

/** A customer's record and projection, read together. */
type CustomerSnaps = [DocumentSnapshot<CustomerRecord>, DocumentSnapshot<ProjectionDoc>];

/** Grant ids are deterministic per subscription and key, so re-applying updates in place. */
export const railGrantId = (rail: CatalogRail, subscriptionId: string, key: string): string => `${rail}:${subscriptionId}:${key}`;

/**
 * Decisions about one event, subscription or customer take turns on the instance with every
 * other writer of that customer (store/writeQueue.ts) rather than race into the same
 * transaction (each racer would take read locks on the record and the projection, then all
 * would wait upgrading them). Across instances the transaction decides. The provider's state
 * is read by the caller before this point: no key is held across an outbound call.
 */
export async function decideRailEvent(input: RailDecisionInput): Promise<RailDecision> {
  const { scope, customer } = input;
  const keys = [writeKeys.event(scope, input.eventId)];
  if (input.subscriptionId) keys.push(writeKeys.subscription(scope, subscriptionDocId(input.rail, input.subscriptionId)));
  if (customer) keys.push(writeKeys.customer(scope, customer.customerId));
  // A customer created with the decision takes turns with the identity repository's links of its identifiers.
  const newIdentities = customer?.check?.kind === 'create' ? customer.check.identities : [];
  keys.push(...newIdentities.map((identity) => writeKeys.identity(scope, identityDocId(identity.kind, identity.id))));
  const decision = await writeQueue.run(keys, async () => {
    try {
      return await decideInTransaction(input, await grantsAheadOf(input));
    } catch (err) {
      // An entry created by another writer after the transaction read it absent (or the audit
      // entry, by a concurrent delivery: resolved again, the decision then finds it a duplicate).
      if (newIdentities.length > 0 && isAlreadyExists(err)) throw new RailCustomerMoved();
      throw err;
    }
  });
  await dispatchWebhookEvents(input.tasks, scope, decision.webhookFanouts);
  return decision;
}

/**
 * A delivery whose event id was found audited before any transaction: an audit entry is written
 * once (`create()`) and never changed, so this is the recorded decision, and nothing is read or
 * written for it. Its projection is not read (the rails' answer names none).
 */
export function alreadyDecided(entry: AuditEntry): RailDecision {
  return { duplicate: true, decision: entry.decision, reason: entry.reason, customerId: entry.customerId, fromState: entry.fromState, toState: entry.toState, projection: null, webhookFanouts: [] };
}

/** The expected customer's grants read ahead of the transaction (rails/grantsReadAhead.ts): none to read for a customer created with the decision. */
async function grantsAheadOf(input: RailDecisionInput): Promise<GrantsReadAhead | null> {
  const { customer } = input;
  if (!customer) return null;
  if (customer.check?.kind === 'create') return newCustomerReadAhead(customer.customerId);
  return readGrantsAhead(input.scope, customer.customerId);
}

/**
 * The products this event shows whatever the stored record holds (its snapshot without one):
 * their catalog entries ride along with the transaction's first read. Products only the
 * stored record names (a refund's) are read afterwards.
 */
function expectedProducts(input: RailDecisionInput): string[] {
  if (!input.subscriptionId) return [];
  return [...new Set(input.snapshot(null)?.productIds ?? [])].filter(isProductId);
}

async function decideInTransaction(input: RailDecisionInput, preRead: GrantsReadAhead | null): Promise<RailDecision> {
  const { scope } = input;
  const products = expectedProducts(input);
  return scope.runTransaction(async (tx) => {
    const subRef = input.subscriptionId ? subscriptionRef(scope, input.rail, input.subscriptionId) : null;
    const expected = input.customer?.customerId ?? null;
    const check = input.customer?.check ?? null;
    const newIdentities = check?.kind === 'create' ? check.identities : [];
    const claimRefs = revenueClaimRefs(scope, input.revenue);
    // One read for the event, the record, the expected customer with its projection (and the index entries of a customer to create), the revenue claims, the catalog entries and the webhook directory.
    const [[auditSnap], subSnaps, expectedCustomer, expectedProjection, identitySnaps, claimSnaps, catalogSnaps, [directorySnap]] = await readGroupsInTx(
      tx,
      [auditRef(scope, input.eventId)],
      subRef ? [subRef] : [],
      expected ? [customerRef(scope, expected)] : [],
      expected ? [projectionRef(scope, expected)] : [],
      newIdentities.map((identity) => identityRef(scope, identity.kind, identity.id)),
      claimRefs,
      products.map((productId) => catalogProductRef(scope, input.rail, productId)),
      [webhookDirectoryRef(scope)],
    );
    const webhookDirectory = directoryOf(directorySnap);
    const expectedSnaps: CustomerSnaps | null = expected ? [expectedCustomer[0], expectedProjection[0]] : null;
    const current = subSnaps[0]?.data() ?? null;
    const catalogKeys = new Map(products.map((productId, i) => [productId, entitlementKeysOf(catalogSnaps[i])]));
    if (auditSnap.exists) return duplicateOf(tx, scope, auditSnap, expected, expectedSnaps?.[1] ?? null);
    // The customer resolved before the transaction must be as it was read (rails/customers.ts).
    if (check?.kind === 'create' && (identitySnaps.some((snap) => snap.exists) || expectedCustomer[0].exists)) throw new RailCustomerMoved();
    if (check?.kind === 'active' && expectedCustomer[0].data()?.status !== 'active') throw new RailCustomerMoved();
    const created = check?.kind === 'create' ? expected : null;
    // Written once every read is done: the identity repository's creation for unknown identifiers, with the decision.
    const createCustomer = () => {
      if (created) createFreshCustomer(tx, scope, created, { hints: newIdentities, indexSnapshots: identitySnaps, profile: { email: null, traits: {} } }, 'rail', input.now);
    };

    const { customerId, projectionSnap, transfer } = await owningCustomer(tx, input, current, expectedSnaps, created);
    const fromState = current?.state ?? null;

    const stale = isStale(input, current);
    const snapshot = stale ? null : input.snapshot(current);
    if (!snapshot || !subRef) {
      const reason = stale ? 'out_of_order' : input.noSnapshotReason;
      // Nothing to apply: the record keeps its owner, whoever presented it.
      const keptOwner = transfer ? transfer.fromCustomerId : customerId;
      const keptProjection = transfer ? transfer.fromProjection : projectionSnap;
      const outcome: RailDecision = { duplicate: false, decision: 'no_op', reason, customerId: keptOwner, fromState, toState: fromState, projection: storedProjection(keptProjection), webhookFanouts: [] };
      createCustomer();
      record(tx, input, outcome, claimSnaps);
      return outcome;
    }

    const keysByProduct = await Promise.all(snapshot.productIds.map((productId) => catalogKeys.get(productId) ?? entitlementKeysForProduct(scope, input.rail, productId, tx)));
    const preReadExact = preRead !== null && customerId === preRead.customerId && projectionSnap !== null && isReadAheadExact(preRead, projectionSnap);
    const grants = !customerId ? [] : preReadExact ? preRead.grants : await readCustomerGrants(tx, scope, customerId);
    // A transfer takes the subscription's grants from the previous owner to the new one.
    const fromGrants = transfer ? await readCustomerGrants(tx, scope, transfer.fromCustomerId) : [];
    const moved = transfer ? fromGrants.filter((g) => isGrantOf(g, input.rail, snapshot.subscriptionId)).map((g) => ({ ...g, customerId: customerId!, updatedAt: input.now })) : [];

    // Writes: every read is done.
    createCustomer();
    const decided = customerId ? subscriptionGrants(input, snapshot, keysByProduct, current, [...grants, ...moved], customerId) : [];
    const changed = [...new Map([...moved, ...decided].map((g) => [g.grantId, g])).values()];
    const grantedKeys = [...new Set(keysByProduct.flat())].sort();
    let projection: ProjectionDoc | null = null;
    let webhookFanouts: WebhookFanout[] = [];
    if (customerId && projectionSnap) {
      const cause: EntitlementCause = { kind: 'rail', rail: input.rail, auditEventId: input.eventId, eventType: input.eventType, ...takenBack(snapshot.state) };
      const previous = transfer ? [{ customerId: transfer.fromCustomerId, projection: transfer.fromProjection, grants: fromGrants }] : [];
      const applied = applyGrantChanges(tx, scope, { customers: [{ customerId, projection: projectionSnap, grants }, ...previous], changes: changed, cause, now: input.now, webhookDirectory });
      projection = applied.projections.get(customerId)!;
      webhookFanouts = applied.webhookFanouts;
    }
    const transferFanout = transfer && customerId ? journalTransfer(tx, input, transfer, customerId, webhookDirectory) : null;
    if (transferFanout) webhookFanouts.push(transferFanout);
    tx.set(subRef, subscriptionRecord(input, snapshot, current, customerId, grantedKeys));

    const decision = decideOutcome(snapshot, current, changed, customerId, grantedKeys);
    const outcome: RailDecision = { duplicate: false, ...decision, customerId, fromState, toState: snapshot.state, projection, webhookFanouts, ...(transfer ? { transferredFrom: transfer.fromCustomerId } : {}) };
    record(tx, input, outcome, claimSnaps, { productIds: snapshot.productIds, entitlementKeys: grantedKeys, ...(transfer ? { transferredFrom: transfer.fromCustomerId, transferReason: transfer.reason } : {}) });
    return outcome;
  });
}

/** A refund or a revocation takes access back on purpose (the change's webhook says which). */
function takenBack(state: SubscriptionSnapshot['state']): Pick<EntitlementCause, 'takenBack'> {
  if (state === 'refunded') return { takenBack: 'refunded' };
  if (state === 'revoked') return { takenBack: 'revoked' };
  return {};
}

function isStale(input: RailDecisionInput, current: SubscriptionRecord | null): boolean {
  if (!current) return false;
  if (input.readAt !== undefined) return (current.lastReadAt ?? 0) > input.readAt;
  return input.eventAt < current.lastEventAt;
}

/** A subscription moving from its previous owner (see owningCustomer). */
interface Transfer {
  fromCustomerId: string;
  fromProjection: DocumentSnapshot<ProjectionDoc>;
  reason: TransferReason;
}

/**
 * The customer the subscription belongs to after this event:
 * - no record yet: the customer resolved for this event;
 * - an active owner: the owner, unless the event presents the purchase for another active
 *   customer (`claimant`) and the project's transfer setting is `transfer`: then the claimant,
 *   as a transfer;
 * - an owner merged into another customer: the customer resolved for this event (the merge
 *   already moved its identifiers and grants);
 * - an erased (or erasing, or missing) owner keeps no claim: the claimant, else the customer
 *   resolved for this event, as a transfer.
 * Only an active customer receives anything.
 */
async function owningCustomer(
  tx: Transaction,
  input: RailDecisionInput,
  current: SubscriptionRecord | null,
  expectedSnaps: CustomerSnaps | null,
  created: string | null,
): Promise<{ customerId: string | null; projectionSnap: DocumentSnapshot<ProjectionDoc> | null; transfer: Transfer | null }> {
  const { scope } = input;
  const expected = input.customer?.customerId ?? null;
  const owner = current?.customerId ?? null;
  const snapsOf = async (id: string): Promise<CustomerSnaps> =>
    id === expected && expectedSnaps ? expectedSnaps : getAllInTx(tx, scope, [customerRef(scope, id), projectionRef(scope, id)]);
  // The customer this transaction creates is active from its commit on.
  const statusOf = (snap: DocumentSnapshot<CustomerRecord>) => (snap.id === created ? 'active' : (snap.data()?.status ?? null));
  const activeOrNull = async (id: string | null) => {
    if (!id) return null;
    const [customer, projection] = await snapsOf(id);
    return statusOf(customer) === 'active' ? { customerId: id, projectionSnap: projection } : null;
  };

  if (!owner) return { ...((await activeOrNull(expected)) ?? { customerId: null, projectionSnap: null }), transfer: null };
  const [ownerCustomer, ownerProjection] = await snapsOf(owner);
  const ownerStatus = statusOf(ownerCustomer);
  const claimantId = input.claimant?.(current) ?? null;
  if (ownerStatus === 'active') {
    const claimant = claimantId && claimantId !== owner ? await activeOrNull(claimantId) : null;
    if (claimant && (await transferBehaviorIn(tx, scope)) === 'transfer') {
      return { ...claimant, transfer: { fromCustomerId: owner, fromProjection: ownerProjection, reason: 'transfer_setting' } };
    }
    return { customerId: owner, projectionSnap: ownerProjection, transfer: null };
  }
  if (ownerStatus === 'merged') return { ...((await activeOrNull(expected)) ?? { customerId: null, projectionSnap: null }), transfer: null };
  const heir = (await activeOrNull(claimantId)) ?? (await activeOrNull(expected));
  if (!heir || heir.customerId === owner) return { customerId: null, projectionSnap: null, transfer: null };
  return { ...heir, transfer: { fromCustomerId: owner, fromProjection: ownerProjection, reason: 'owner_erased' } };
}

const isGrantOf = (grant: GrantRecord, rail: CatalogRail, subscriptionId: string): boolean => grant.source.rail === rail && grant.source.subscriptionId === subscriptionId;

/**
 * One audit entry (`customer.subscription_transferred`, both customers named, the proving event
 * in its details) and its outbound webhook event, in the decision's transaction; returns the
 * webhook event's fan-out (null: the directory shows nobody subscribed).
 */
function journalTransfer(tx: Transaction, input: RailDecisionInput, transfer: Transfer, toCustomerId: string, webhookDirectory: WebhookDirectory | null): WebhookFanout | null {
  const auditEventId = `srv_transfer_${randomToken(24)}`;
  appendAudit(tx, input.scope, {
    eventId: auditEventId,
    rail: input.rail,
    eventType: SUBSCRIPTION_TRANSFERRED_EVENT_TYPE,
    customerId: toCustomerId,
    subscriptionId: input.subscriptionId,
    decision: 'applied',
    reason:
      transfer.reason === 'owner_erased'
        ? `The subscription's owner ${transfer.fromCustomerId} was erased and keeps no claim; verified event ${input.eventId} presented it for ${toCustomerId}.`
        : `The project's transfer setting is transfer: verified event ${input.eventId} presented the subscription of ${transfer.fromCustomerId} for ${toCustomerId}.`,
    fromState: `owner:${transfer.fromCustomerId}`,
    toState: `owner:${toCustomerId}`,
    signatureVerified: true,
    reconciledWithProvider: input.reconciledWithProvider,
    rawEventReceivedAt: input.receivedAt,
    processedAt: input.now,
    details: { fromCustomerId: transfer.fromCustomerId, toCustomerId, reason: transfer.reason, proofEventId: input.eventId },
  });
  const event = subscriptionTransferredEvent(input.scope, {
    toCustomerId,
    fromCustomerId: transfer.fromCustomerId,
    rail: input.rail,
    subscriptionId: input.subscriptionId!,
    reason: transfer.reason,
    auditEventId,
    at: input.now,
  });
  return appendWebhookEvent(tx, input.scope, event, webhookDirectory);
}

async function duplicateOf(tx: Transaction, scope: EnvScope, auditSnap: DocumentSnapshot<AuditEntry>, expected: string | null, expectedProjection: DocumentSnapshot<ProjectionDoc> | null): Promise<RailDecision> {
  const entry = auditSnap.data()!;
  let projectionSnap: DocumentSnapshot<ProjectionDoc> | null = null;
  if (entry.customerId && entry.customerId === expected) projectionSnap = expectedProjection;
  else if (entry.customerId) [projectionSnap] = await getAllInTx(tx, scope, [projectionRef(scope, entry.customerId)]);
  return {
    duplicate: true,
    decision: entry.decision,
    reason: entry.reason,
    customerId: entry.customerId,
    fromState: entry.fromState,
    toState: entry.toState,
    projection: storedProjection(projectionSnap),
    webhookFanouts: [],
  };
}

const storedProjection = (snap: DocumentSnapshot<ProjectionDoc> | null): ProjectionDoc | null => snap?.data() ?? null;

/**
 * The subscription's grants after this event: one per entitlement key its products unlock,
 * valid until the access end (revoked on refund or revocation); keys it granted before and no
 * longer unlocks (a product change) lapse now.
 */
function subscriptionGrants(
  input: RailDecisionInput,
  snapshot: SubscriptionSnapshot,
  keysByProduct: string[][],
  current: SubscriptionRecord | null,
  grants: readonly GrantRecord[],
  customerId: string,
): GrantRecord[] {
  const { rail, now } = input;
  const existing = new Map(grants.map((g) => [g.grantId, g]));
  const changed: GrantRecord[] = [];
  const granted = new Set<string>();
  // Access that ends with this event ends when it happened (never later than now).
  const endedAt = Math.min(input.eventAt, now);
  const validUntil = ACCESS_STATES.has(snapshot.state) ? snapshot.accessUntil : Math.min(snapshot.accessUntil ?? endedAt, endedAt);
  snapshot.productIds.forEach((productId, i) => {
    for (const key of keysByProduct[i]) {
      if (granted.has(key)) continue;
      granted.add(key);
      const grantId = railGrantId(rail, snapshot.subscriptionId, key);
      const before = existing.get(grantId);
      const next: GrantRecord = {
        grantId,
        customerId,
        entitlementKey: key,
        source: { rail, productId, subscriptionId: snapshot.subscriptionId },
        validUntil,
        revokedAt: snapshot.revokedAt,
        createdAt: before?.createdAt ?? now,
        updatedAt: now,
      };
      if (!before || grantDiffers(before, next)) changed.push(next);
    }
  });
  for (const key of current?.entitlementKeys ?? []) {
    if (granted.has(key)) continue;
    const before = existing.get(railGrantId(rail, snapshot.subscriptionId, key));
    if (!before || before.revokedAt !== null) continue;
    const lapsed = before.validUntil === null ? endedAt : Math.min(before.validUntil, endedAt);
    if (lapsed !== before.validUntil) changed.push({ ...before, validUntil: lapsed, updatedAt: now });
  }
  return changed;
}

function grantDiffers(a: GrantRecord, b: GrantRecord): boolean {
  return (
    a.validUntil !== b.validUntil ||
    a.revokedAt !== b.revokedAt ||
    a.customerId !== b.customerId ||
    a.source.productId !== b.source.productId ||
    a.source.subscriptionId !== b.source.subscriptionId
  );
}

function subscriptionRecord(
  input: RailDecisionInput,
  snapshot: SubscriptionSnapshot,
  current: SubscriptionRecord | null,
  customerId: string | null,
  entitlementKeys: string[],
): SubscriptionRecord {
  const record: SubscriptionRecord = {
    ...snapshot,
    rail: input.rail,
    productId: snapshot.productIds[0] ?? current?.productId ?? '',
    customerId,
    entitlementKeys,
    lastEventId: input.eventId,
    lastEventAt: Math.max(input.eventAt, current?.lastEventAt ?? 0),
    lastReadAt: input.readAt !== undefined ? Math.max(input.readAt, current?.lastReadAt ?? 0) : (current?.lastReadAt ?? null),
    createdAt: current?.createdAt ?? input.now,
    updatedAt: input.now,
    ...(input.railFacts ? input.railFacts(current) : {}),
  };
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as SubscriptionRecord;
}

function decideOutcome(
  snapshot: SubscriptionSnapshot,
  current: SubscriptionRecord | null,
  changed: readonly GrantRecord[],
  customerId: string | null,
  grantedKeys: string[],
): { decision: AuditEntry['decision']; reason: string } {
  if (!customerId) return { decision: 'no_op', reason: 'customer_unbound' };
  if (grantedKeys.length === 0 && changed.length === 0) return { decision: 'no_op', reason: 'product_not_in_catalog' };
  // A change of state is a decision even when the grants already end at the right time.
  if (changed.length > 0 || current?.state !== snapshot.state) return { decision: 'applied', reason: transitionReason(current?.state ?? null, snapshot.state) };
  return { decision: 'no_op', reason: 'already_current' };
}

function transitionReason(from: string | null, to: string): string {
  if (from === null) return `created_${to}`;
  return from === to ? `updated_${to}` : `${from}_to_${to}`;
}

function record(tx: Transaction, input: RailDecisionInput, outcome: RailDecision, revenueClaims: Parameters<typeof recordRevenue>[3], extra: Record<string, unknown> = {}): void {
  appendAudit(tx, input.scope, {
    eventId: input.eventId,
    rail: input.rail,
    eventType: input.eventType,
    customerId: outcome.customerId,
    subscriptionId: input.subscriptionId,
    decision: outcome.decision,
    reason: outcome.reason,
    fromState: outcome.fromState,
    toState: outcome.toState,
    signatureVerified: true,
    reconciledWithProvider: input.reconciledWithProvider,
    rawEventReceivedAt: input.receivedAt,
    processedAt: input.now,
    details: { ...input.details, ...extra },
  });
  recordRevenue(tx, input.scope, input.revenue, revenueClaims);
  input.extraWrites?.(tx, outcome);
}
