import { Timestamp, type DocumentSnapshot, type Transaction } from 'firebase-admin/firestore';
import { auditExpiry } from '../audit/append';
import { recordSubscriberChanges } from './subscriberRollup';
import type { EnvScope } from '../store/scope';
import { ENTITLEMENT_CHANGES, type EntitlementCause, type EntitlementChange } from './changeModel';
import { GRANTS, PROJECTIONS, type GrantRecord, type ProjectedEntitlement, type ProjectionDoc } from './model';
import { listFacets } from './listFacets';
import { projectEntitlements } from './projection';
import { isActiveAt, toPublicEntitlement } from './publicShape';
import { classifyEntitlementChange, entitlementEventRecord, type EntitlementEventType } from './webhookEvents';
import { appendWebhookEvent } from '../webhooks/outbox';
import type { WebhookDirectory } from '../webhooks/directory';
import type { WebhookFanout } from '../webhooks/dispatch';

/**
 * The one writer of grants, projections and entitlement change records. Every path that changes
 * entitlements (server grant and revoke, migration rows, rail decisions, merges) calls
 * `applyGrantChanges` inside its own transaction, after its reads: it writes the changed grants,
 * rewrites each touched customer's projection from that customer's grant list as it will be,
 * and appends one change record per key whose public state changed, numbered per customer,
 * with the outbound webhook event of each record a receiver is told about (the outbox,
 * webhooks/entitlementEvents.ts) and the subscriber rollups the records move
 * (reports/subscriberRollup.ts). `recordExpiries` appends the records of ends that passed.
 * Nothing else writes `grants/`, `projections/` or `entitlementChanges/`
 * (test/entitlements/oneWriter.test.ts holds that).
 */

/** One customer's entitlement state as the caller's transaction read it. */
export interface CustomerEntitlements {
  customerId: string;
  /**
   * The projection document read IN the caller's transaction: it orders this change after every
   * earlier one of the customer and carries the last change sequence.
   */
  projection: DocumentSnapshot<ProjectionDoc>;
  /**
   * Every grant of the customer (revoked ones included), read in the transaction or beside it
   * under the guard of `projection` (`readCustomerGrantsGuarded`).
   */
  grants: readonly GrantRecord[];
}

export interface GrantChanges {
  /** Every customer whose grant list a change touches (a merge: the winner and the merged). */
  customers: readonly CustomerEntitlements[];
  /**
   * Grants as they are after this change (new, updated, revoked, or moved to another customer by
   * a different `customerId`). Each grant appears once; it is written as given.
   */
  changes: readonly GrantRecord[];
  /** Why: the audit entry written beside this change; per key when the keys were decided apart. */
  cause: EntitlementCause | ((key: string) => EntitlementCause);
  now: number;
  /**
   * The partition's webhook directory as the caller's transaction read it (`webhookDirectoryRef`
   * beside its first read, `directoryOf`), or null when not read or absent (unknown: every event
   * is fanned out). Events nobody is subscribed to are then written already fanned out.
   */
  webhookDirectory: WebhookDirectory | null;
}

export interface AppliedChanges {
  /** Each touched customer's projection after the change, by customer id. */
  projections: Map<string, ProjectionDoc>;
  /** The change records appended, in sequence order per customer. */
  records: EntitlementChange[];
  /**
   * The webhook events written beside the records that need their fan-out (with what the
   * directory said of their targets): the caller enqueues it after the commit
   * (webhooks/dispatch.ts). Events the directory showed nobody subscribed to are written already
   * fanned out and are not listed.
   */
  webhookFanouts: WebhookFanout[];
}

/** Change record ids sort by sequence within a customer: `{customerId}:{sequence, 12 digits}`. */
export const changeRecordId = (customerId: string, sequence: number): string => `${customerId}:${String(sequence).padStart(12, '0')}`;
export const changeRecordRef = (scope: EnvScope, customerId: string, sequence: number) => scope.doc(ENTITLEMENT_CHANGES, changeRecordId(customerId, sequence));

/**
 * Applies `changes` in the caller's transaction. Every read must be done before (Firestore
 * transactions read first, then write); this function only writes. A customer none of whose
 * grants changed is left untouched, so a no-op writes nothing.
 */
export function applyGrantChanges(tx: Transaction, scope: EnvScope, input: GrantChanges): AppliedChanges {
  const { changes, now } = input;
  const ids = new Set(input.customers.map((c) => c.customerId));
  if (ids.size !== input.customers.length) throw new Error('applyGrantChanges: a customer is listed twice');
  for (const grant of changes) {
    if (!ids.has(grant.customerId)) throw new Error(`applyGrantChanges: grant ${grant.grantId} belongs to ${grant.customerId}, whose projection was not read`);
  }
  const changedIds = new Set(changes.map((g) => g.grantId));
  if (changedIds.size !== changes.length) throw new Error('applyGrantChanges: a grant is changed twice');

  for (const grant of changes) tx.set(scope.doc(GRANTS, grant.grantId), grant);

  const projections = new Map<string, ProjectionDoc>();
  const records: EntitlementChange[] = [];
  const webhookFanouts: WebhookFanout[] = [];
  for (const customer of input.customers) {
    const before = storedProjection(customer.projection);
    const touched = customer.grants.some((g) => changedIds.has(g.grantId)) || changes.some((g) => g.customerId === customer.customerId);
    const grantsAfter = grantListAfter(customer, changes);
    if (!touched) {
      projections.set(customer.customerId, {
        customerId: customer.customerId,
        entitlements: projectEntitlements(grantsAfter, now),
        updatedAt: now,
        changeSequence: before?.changeSequence ?? 0,
        ...expiryFields(before?.pendingExpiries ?? {}),
      });
      continue;
    }
    const entitlements = projectEntitlements(grantsAfter, now);
    const customerRecords = changeRecords(scope, customer.customerId, before, entitlements, input.cause, now);
    const eventTypes = new Map(customerRecords.map((r) => [r.key, classifyEntitlementChange(r, knownActive(before, r.key, now))]));
    const doc: ProjectionDoc = {
      customerId: customer.customerId,
      entitlements,
      updatedAt: now,
      changeSequence: (before?.changeSequence ?? 0) + customerRecords.length,
      ...expiryFields(pendingAfter(before, entitlements, eventTypes, now)),
      listFacets: listFacets(entitlements, now),
    };
    tx.set(scope.doc(PROJECTIONS, customer.customerId), doc);
    for (const record of customerRecords) {
      tx.create(changeRecordRef(scope, record.customerId, record.sequence), record);
      const type = eventTypes.get(record.key);
      const fanout = type ? appendEvent(tx, scope, record, type, input.webhookDirectory) : null;
      if (fanout) webhookFanouts.push(fanout);
    }
    projections.set(customer.customerId, doc);
    records.push(...customerRecords);
  }
  // The subscriber rollups move with the change records, in the same transaction.
  recordSubscriberChanges(tx, scope, records);
  return { projections, records, webhookFanouts };
}

/** Writes the record's event; its fan-out, or null when the directory shows nobody to send it to. */
function appendEvent(tx: Transaction, scope: EnvScope, record: EntitlementChange, type: EntitlementEventType, directory: WebhookDirectory | null): WebhookFanout | null {
  return appendWebhookEvent(tx, scope, entitlementEventRecord(record, type), directory);
}

/**
 * Whether receivers know the key as active: present and not past its end, or past it with the
 * end still pending (not recorded as expired yet; the expiry worker runs every minute).
 */
function knownActive(before: ProjectionDoc | null, key: string, now: number): boolean {
  const entitlement = before?.entitlements[key];
  if (!entitlement) return false;
  if (isActiveAt(entitlement.validUntil, now)) return true;
  return entitlement.validUntil !== null && before?.pendingExpiries?.[key] === entitlement.validUntil;
}

/**
 * The ends still to record after a write at `now`: every key that is active with an end, and a
 * key already past its end that was pending and that this write neither changed in a way that
 * told its end (expired, revoked, refunded) nor moved.
 */
function pendingAfter(
  before: ProjectionDoc | null,
  entitlements: Record<string, ProjectedEntitlement>,
  eventTypes: Map<string, EntitlementEventType | null>,
  now: number,
): Record<string, number> {
  const pending: Record<string, number> = {};
  const told = new Set<EntitlementEventType | null | undefined>(['entitlement.expired', 'entitlement.revoked', 'entitlement.refunded']);
  for (const [key, entitlement] of Object.entries(entitlements)) {
    const end = entitlement.validUntil;
    if (end === null) continue;
    if (end > now || (before?.pendingExpiries?.[key] === end && !told.has(eventTypes.get(key)))) pending[key] = end;
  }
  return pending;
}

/** The projection's expiry bookkeeping for a set of pending ends. */
function expiryFields(pending: Record<string, number>): Pick<ProjectionDoc, 'pendingExpiries' | 'nextExpiryAt'> {
  const ends = Object.values(pending);
  return { pendingExpiries: pending, nextExpiryAt: ends.length > 0 ? Math.min(...ends) : null };
}

/** Keys of a stored projection whose pending end has passed at `now`, in key order. */
export function dueExpiries(projection: ProjectionDoc | null, now: number): ProjectedEntitlement[] {
  if (!projection) return [];
  const pending = projection.pendingExpiries ?? {};
  return Object.keys(pending)
    .sort()
    .map((key) => projection.entitlements[key])
    .filter((entitlement): entitlement is ProjectedEntitlement => entitlement !== undefined && entitlement.validUntil !== null && pending[entitlement.key] === entitlement.validUntil && entitlement.validUntil <= now);
}

export interface Expiries {
  customerId: string;
  /** The projection document read IN the caller's transaction. */
  projection: DocumentSnapshot<ProjectionDoc>;
  /** Each key to record as expired (due by `dueExpiries`) with its cause: the audit entry written beside it. */
  keys: ReadonlyMap<string, EntitlementCause>;
  now: number;
  /** As `GrantChanges.webhookDirectory`. */
  webhookDirectory: WebhookDirectory | null;
}

/**
 * Records keys whose end passed without a renewal, in the caller's transaction: one change
 * record per key (the public state as it was just before its end → as it is now, inactive),
 * numbered in the customer's sequence, with its `entitlement.expired` event; the projection keeps
 * its entitlements and loses those keys' pending ends. A key that is not due is refused.
 */
export function recordExpiries(tx: Transaction, scope: EnvScope, input: Expiries): AppliedChanges {
  const { customerId, now } = input;
  const before = storedProjection(input.projection);
  const due = new Map(dueExpiries(before, now).map((e) => [e.key, e]));
  const records: EntitlementChange[] = [];
  const webhookFanouts: WebhookFanout[] = [];
  let sequence = before?.changeSequence ?? 0;
  for (const [key, cause] of [...input.keys.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const entitlement = due.get(key);
    if (!entitlement || entitlement.validUntil === null) throw new Error(`recordExpiries: ${customerId} ${key} is not due to expire`);
    sequence += 1;
    records.push(
      changeRecord(scope, customerId, key, sequence, {
        before: toPublicEntitlement(entitlement, entitlement.validUntil - 1),
        after: toPublicEntitlement(entitlement, now),
        cause,
        now,
      }),
    );
  }
  const projections = new Map<string, ProjectionDoc>();
  if (records.length === 0 || !before) return { projections, records, webhookFanouts };
  const pending = { ...(before.pendingExpiries ?? {}) };
  for (const record of records) delete pending[record.key];
  const doc: ProjectionDoc = { ...before, updatedAt: now, changeSequence: sequence, ...expiryFields(pending), listFacets: listFacets(before.entitlements, now) };
  tx.set(scope.doc(PROJECTIONS, customerId), doc);
  for (const record of records) {
    tx.create(changeRecordRef(scope, customerId, record.sequence), record);
    const fanout = appendEvent(tx, scope, record, 'entitlement.expired', input.webhookDirectory);
    if (fanout) webhookFanouts.push(fanout);
  }
  projections.set(customerId, doc);
  return { projections, records, webhookFanouts };
}

/** The customer's grants after the change: its own with changes applied, plus grants moved to it. */
function grantListAfter(customer: CustomerEntitlements, changes: readonly GrantRecord[]): GrantRecord[] {
  const byId = new Map(customer.grants.map((g) => [g.grantId, g]));
  for (const grant of changes) byId.set(grant.grantId, grant);
  return [...byId.values()].filter((g) => g.customerId === customer.customerId);
}

const storedProjection = (snapshot: DocumentSnapshot<ProjectionDoc>): ProjectionDoc | null => snapshot.data() ?? null;

/**
 * One record per key whose public state changed, in key order. The public state of a key is
 * what a reader can tell apart and what does not move by itself: whether the key is present,
 * its `validUntil` and its `source`. `updatedAt` alone (a losing grant revoked) is not a change,
 * and neither is `isActive` turning false as time passes: that is not a write (the webhooks
 * issue derives `entitlement.expired` from `validUntil`). `before`/`after` are the frozen
 * `PublicEntitlement` shapes at the time of the change.
 */
function changeRecords(
  scope: EnvScope,
  customerId: string,
  before: ProjectionDoc | null,
  after: Record<string, ProjectedEntitlement>,
  cause: GrantChanges['cause'],
  now: number,
): EntitlementChange[] {
  const previous = before?.entitlements ?? {};
  const keys = [...new Set([...Object.keys(previous), ...Object.keys(after)])].sort();
  const records: EntitlementChange[] = [];
  let sequence = before?.changeSequence ?? 0;
  for (const key of keys) {
    const from = previous[key] ?? null;
    const to = after[key] ?? null;
    if (samePublicState(from, to)) continue;
    sequence += 1;
    records.push(
      changeRecord(scope, customerId, key, sequence, {
        before: publicOf(from, now),
        after: publicOf(to, now),
        cause: typeof cause === 'function' ? cause(key) : cause,
        now,
      }),
    );
  }
  return records;
}

/** The one shape of a change record: numbered in the customer's sequence, kept as long as its audit entry. */
function changeRecord(
  scope: EnvScope,
  customerId: string,
  key: string,
  sequence: number,
  change: Pick<EntitlementChange, 'before' | 'after' | 'cause'> & { now: number },
): EntitlementChange {
  return {
    changeId: changeRecordId(customerId, sequence),
    projectId: scope.projectId,
    env: scope.env,
    customerId,
    key,
    sequence,
    before: change.before,
    after: change.after,
    cause: change.cause,
    changedAt: change.now,
    expiresAt: Timestamp.fromMillis(auditExpiry(change.now)),
  };
}

/** Same presence, end and source: nothing a reader or a notification would tell apart. */
export function samePublicState(a: ProjectedEntitlement | null, b: ProjectedEntitlement | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.validUntil === b.validUntil &&
    a.source.rail === b.source.rail &&
    a.source.productId === b.source.productId &&
    a.source.subscriptionId === b.source.subscriptionId
  );
}

const publicOf = (entitlement: ProjectedEntitlement | null, now: number) => (entitlement ? toPublicEntitlement(entitlement, now) : null);
