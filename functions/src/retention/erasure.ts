import type { DocumentReference, Firestore, Query } from 'firebase-admin/firestore';
import type { BackgroundDeps } from '../tasks/background';
import { appendAudit, auditRef } from '../audit/append';
import { EVENTS } from '../events/model';
import { erasePendingEvents } from '../events/pendingBatches';
import { ERASED_GROUP_FIELDS, reportErasureQueries } from '../store/rollups/erasure';
import { EnvScope } from '../store/scope';
import { customerErasedEvent } from '../webhooks/customerEvents';
import { dispatchWebhookEvents } from '../webhooks/dispatch';
import { appendWebhookEvent } from '../webhooks/outbox';
import { directoryOf, webhookDirectoryRef } from '../webhooks/directory';
import { IDENTITY_CONFLICTS } from '../identity/conflictModel';
import { erasureCompletedEventId, type ErasurePayload, erasureTaskId, isErasurePayload, pendingErasureRef } from '../identity/erasureModel';
import { identityLogs } from '../identity/logs';
import { type CustomerRecord, CUSTOMERS, type IdentityKind } from '../customers/model';
import { customerRef, identityIndexCollection } from '../customers/refs';
import { readAllInTx } from '../store/converters';

/**
 * Identifier kinds that are payment-rail records: kept on erasure, because financial-record law
 * supersedes it (spec › Erasure rule 3) and later rail notifications must still find the
 * grants they belong to. Everything else about the person is deleted.
 */
const RAIL_KINDS: ReadonlySet<IdentityKind> = new Set(['stripe', 'apple_otx', 'apple_aat', 'google_token', 'google_account']);

const BATCH_LIMIT = 400;
const IN_LIMIT = 30;

export type ErasureOutcome = 'erased' | 'already_erased' | 'not_pending' | 'unknown_customer';

/**
 * The erasure task. Idempotent: every step deletes what is still there, and the final
 * transaction records completion once. Deletes the customer's developer and anonymous
 * identifiers (and with them the device bindings), email, traits, telemetry keyed to the
 * customer or to those identifiers, the merge conflicts naming them, and what the reports hold of
 * the customer (error-group memberships; the sample, message and name of groups whose latest
 * error was the customer's, reports/erasure.ts); the same for every customer merged into it,
 * whose records keep only `mergedInto` and rail identifiers. Keeps grants, projections, rail
 * identifiers and the audit log (never deleted by erasure). identity/README.md › Erasure lists it all.
 */
export async function runErasure(deps: BackgroundDeps, payload: ErasurePayload): Promise<ErasureOutcome> {
  const scope = new EnvScope(deps.db, payload.projectId, payload.env);
  const ledger = pendingErasureRef(deps.db, erasureTaskId(payload));
  const snapshot = await customerRef(scope, payload.customerId).get();
  if (!snapshot.exists) {
    await ledger.delete();
    return 'unknown_customer';
  }
  const customer = snapshot.data()!;
  if (customer.status === 'erased') {
    await ledger.delete();
    return 'already_erased';
  }
  if (customer.status !== 'erasure_pending') return 'not_pending';

  const personal = customer.identities.filter((i) => !RAIL_KINDS.has(i.kind));
  const developerIds = personal.filter((i) => i.kind === 'developer').map((i) => i.id);
  const anonymousIds = personal.filter((i) => i.kind === 'anonymous').map((i) => i.id);
  const deleted: Record<string, number> = {};

  // The device bindings go first: from then on no identifier reaches the person.
  const identities = await identityIndexCollection(scope).where('customerId', '==', payload.customerId).get();
  deleted.identities = await deleteAll(
    deps.db,
    identities.docs.filter((d) => !RAIL_KINDS.has(d.data().kind)).map((d) => d.ref),
  );

  // The person is also every customer merged into this one (their identifiers moved here; their
  // records, events and report entries did not): each is erased alike.
  const mergedAway = await mergedInto(scope, payload.customerId);
  const customerIds = [payload.customerId, ...mergedAway];

  deleted.pendingEvents = 0;
  for (const customerId of customerIds) {
    deleted.pendingEvents += await erasePendingEvents(scope, { customerId, developerIds: customerId === payload.customerId ? developerIds : [], anonymousIds: customerId === payload.customerId ? anonymousIds : [] });
  }
  const events = scope.collection(EVENTS);
  const eventQueries: Query[] = customerIds.map((customerId) => events.where('serviceCustomerId', '==', customerId));
  for (const ids of chunks(developerIds, IN_LIMIT)) eventQueries.push(events.where('hints.developerUserId', 'in', ids));
  for (const ids of chunks(anonymousIds, IN_LIMIT)) eventQueries.push(events.where('hints.anonymousId', 'in', ids));
  deleted.events = await deleteQueries(deps.db, eventQueries);

  const reports = customerIds.map((customerId) => reportErasureQueries(scope, customerId));
  deleted.errorGroupMemberships = await deleteQueries(deps.db, reports.map((r) => r.memberships));
  deleted.errorSamples = 0;
  for (const { samples } of reports) deleted.errorSamples += await scrubGroups(deps.db, samples);

  const conflicts = scope.collection(IDENTITY_CONFLICTS);
  deleted.conflicts = await deleteQueries(deps.db, customerIds.flatMap((customerId) => [
    conflicts.where('canonicalCustomerId', '==', customerId),
    conflicts.where('otherCustomerIds', 'array-contains', customerId),
  ]));
  deleted.mergedCustomers = await scrubMergedCustomers(deps.db, scope, mergedAway, deps.clock.now());

  const now = deps.clock.now();
  // `customer.erased`, in the completion's transaction (with its audit entry, once); no personal data.
  const erasedEvent = customerErasedEvent(scope, { customerId: payload.customerId, auditEventId: erasureCompletedEventId(payload.customerId), at: now });
  const outcome = await scope.runTransaction(async (tx) => {
    const [current, completedAudit, webhookDirectory] = await readAllInTx(tx, customerRef(scope, payload.customerId), auditRef(scope, erasureCompletedEventId(payload.customerId)), webhookDirectoryRef(scope));
    const record = current.data();
    if (!record || record.status !== 'erasure_pending') return { erased: false, fanout: null } as const;
    const tombstone: CustomerRecord = {
      customerId: record.customerId,
      createdAt: record.createdAt,
      updatedAt: now,
      email: null,
      traits: {},
      identities: record.identities.filter((i) => RAIL_KINDS.has(i.kind)),
      status: 'erased',
      erasure: { ...record.erasure!, completedAt: now },
    };
    tx.set(current.ref, tombstone);
    tx.delete(ledger);
    if (!completedAudit.exists) {
      appendAudit(tx, scope, {
        eventId: erasureCompletedEventId(payload.customerId),
        rail: 'manual',
        eventType: 'customer.erasure_completed',
        customerId: payload.customerId,
        subscriptionId: null,
        decision: 'applied',
        reason: 'Personal data erased (identifiers, device bindings, email, traits, telemetry); payment-rail records retained.',
        fromState: 'erasure_pending',
        toState: 'erased',
        signatureVerified: false,
        reconciledWithProvider: false,
        rawEventReceivedAt: record.erasure?.requestedAt ?? now,
        processedAt: now,
        details: { deleted },
      });
      return { erased: true, fanout: appendWebhookEvent(tx, scope, erasedEvent, directoryOf(webhookDirectory)) } as const;
    }
    return { erased: true, fanout: null } as const;
  });
  if (!outcome.erased) return 'not_pending';
  identityLogs.erasureCompleted(payload.projectId, payload.env, payload.customerId, deleted);
  // Read beside the customer: with nobody subscribed the event is written fanned out and needs no task.
  if (outcome.fanout) await dispatchWebhookEvents(deps.tasks, scope, [outcome.fanout]);
  return 'erased';
}

/** The `erasure` queue's handler: a malformed payload is dropped (retrying cannot fix it). */
export async function erasureTaskHandler(payload: Record<string, unknown>, deps: BackgroundDeps): Promise<void> {
  if (!isErasurePayload(payload)) return;
  await runErasure(deps, { projectId: payload.projectId, env: payload.env, customerId: payload.customerId });
}

/** Deletes every document the queries match, a page at a time (a page is one batch). */
async function deleteQueries(db: Firestore, queries: Query[]): Promise<number> {
  let count = 0;
  for (const query of queries) {
    for (;;) {
      const page = await query.limit(BATCH_LIMIT).get();
      if (page.empty) break;
      count += await deleteAll(db, page.docs.map((d) => d.ref));
    }
  }
  return count;
}

/** Scrubs every error group whose latest sample the query matches: sample, message and name (the group and its counts stay). */
async function scrubGroups(db: Firestore, query: Query): Promise<number> {
  let count = 0;
  for (;;) {
    const page = await query.limit(BATCH_LIMIT).get();
    if (page.empty) return count;
    const batch = db.batch();
    for (const doc of page.docs) batch.update(doc.ref, { ...ERASED_GROUP_FIELDS });
    await batch.commit();
    count += page.size;
  }
}

/** Every customer merged (directly or through another merged one) into `customerId`. */
async function mergedInto(scope: EnvScope, customerId: string): Promise<string[]> {
  const found: string[] = [];
  const seen = new Set([customerId]);
  let frontier = [customerId];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const ids of chunks(frontier, IN_LIMIT)) {
      const page = await scope.collection(CUSTOMERS).where('mergedInto', 'in', ids).get();
      for (const doc of page.docs) {
        if (seen.has(doc.id)) continue;
        seen.add(doc.id);
        found.push(doc.id);
        next.push(doc.id);
      }
    }
    frontier = next;
  }
  return found;
}

/**
 * A merged-away record keeps only what routes a lookup to its canonical customer (status,
 * `mergedInto`) and its rail identifiers: its email and traits go, so that neither the record
 * nor the dashboard's search by email finds the person any more.
 */
async function scrubMergedCustomers(db: Firestore, scope: EnvScope, customerIds: string[], now: number): Promise<number> {
  let count = 0;
  for (const group of chunks(customerIds, BATCH_LIMIT)) {
    const snapshots = await scope.getAll(...group.map((id) => customerRef(scope, id)));
    const batch = db.batch();
    for (const snapshot of snapshots) {
      const record = snapshot.data();
      if (!record) continue;
      batch.update(snapshot.ref, { email: null, traits: {}, identities: (record.identities ?? []).filter((i) => RAIL_KINDS.has(i.kind)), updatedAt: now });
      count += 1;
    }
    await batch.commit();
  }
  return count;
}

async function deleteAll(db: Firestore, refs: DocumentReference[]): Promise<number> {
  for (const group of chunks(refs, BATCH_LIMIT)) {
    const batch = db.batch();
    for (const ref of group) batch.delete(ref);
    await batch.commit();
  }
  return refs.length;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
