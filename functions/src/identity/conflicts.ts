import type { DocumentSnapshot } from 'firebase-admin/firestore';
import { directoryOf, webhookDirectoryRef } from '../webhooks/directory';
import { appendAudit, newServerEventId } from '../audit/append';
import { actorDetails, CLI_ACTOR, type OperatorActor } from '../audit/operatorActor';
import { DomainError } from '../errors/domain';
import { projectionRef, readGrantsOfCustomers } from '../entitlements/projection';
import { MERGE_EVENT_TYPE } from '../entitlements/changeModel';
import { applyGrantChanges } from '../entitlements/writer';
import { randomToken } from '../ids/random';
import { customerMergedEvent } from '../webhooks/customerEvents';
import { dispatchWebhookEvents, type WebhookFanout } from '../webhooks/dispatch';
import { appendWebhookEvent } from '../webhooks/outbox';
import type { TaskQueue } from '../tasks/queue';
import type { Env } from '../store/env';
import { EnvScope } from '../store/scope';
import { inCustomerTurn } from '../store/writeQueue';
import { type ConflictRecord, conflictRef, conflictsCollection, parseConflictId } from './conflictModel';
import { identityDocId } from '../customers/model';
import { customerRef, identityIndexCollection } from '../customers/refs';
import { mergeTraits } from './traits';
import { runIdentityTransaction } from './transactions';
import { readGroupsInTx } from '../store/converters';

/** Operator review of identity merge conflicts (`tessera conflicts list|resolve`). */

export async function listConflicts(scope: EnvScope, status: ConflictRecord['status'] = 'open'): Promise<ConflictRecord[]> {
  const snapshot = await scope.query(conflictsCollection(scope).where('status', '==', status));
  return snapshot.docs.map((d) => d.data()).sort((a, b) => a.createdAt - b.createdAt || a.conflictId.localeCompare(b.conflictId));
}

export interface MergeReport {
  conflictId: string;
  decision: 'merged' | 'kept_separate';
  canonicalCustomerId: string;
  mergedCustomerIds: string[];
  movedIdentities: number;
  movedGrants: number;
  auditEventId: string | null;
}

/** The partition a conflict id names: the CLI opens its scope from the id alone. */
export function conflictPartition(id: string): { projectId: string; env: Env } {
  const partition = parseConflictId(id);
  if (!partition) throw new DomainError('invalid_argument', `Not a conflict id: ${id}.`);
  return partition;
}

/** An operator acts within one partition: a conflict of another one is `not_found`, exactly like an unknown one. */
function requireIn(scope: EnvScope, id: string): void {
  const partition = conflictPartition(id);
  if (partition.projectId !== scope.projectId || partition.env !== scope.env) throw new DomainError('not_found', `No conflict ${id}.`);
}

export async function keepSeparate(scope: EnvScope, id: string, now: number, actor: OperatorActor = CLI_ACTOR): Promise<MergeReport> {
  requireIn(scope, id);
  return runIdentityTransaction(scope, async (tx) => {
    const conflict = openConflict(await tx.get(conflictRef(scope, id)), id);
    tx.update(conflictRef(scope, id), { status: 'kept_separate', resolvedAt: now });
    const auditEventId = newServerEventId('conflict');
    appendAudit(tx, scope, {
      eventId: auditEventId,
      rail: 'manual',
      eventType: 'customer.kept_separate',
      customerId: conflict.canonicalCustomerId,
      subscriptionId: null,
      decision: 'applied',
      reason: `Operator kept ${[conflict.canonicalCustomerId, ...conflict.otherCustomerIds].join(', ')} separate after reviewing conflict ${id}.`,
      fromState: 'open',
      toState: 'kept_separate',
      signatureVerified: false,
      reconciledWithProvider: false,
      rawEventReceivedAt: conflict.createdAt,
      processedAt: now,
      details: { conflictId: id, otherCustomerIds: conflict.otherCustomerIds, ...actorDetails(actor) },
    });
    return { conflictId: id, decision: 'kept_separate', canonicalCustomerId: conflict.canonicalCustomerId, mergedCustomerIds: [], movedIdentities: 0, movedGrants: 0, auditEventId };
  });
}

/**
 * Merges the conflict's other customers into its canonical customer in ONE transaction: every
 * identity-index entry and every grant moves to the canonical customer, its projection is
 * rebuilt from the combined grants, the others become `merged` tombstones pointing at it, and
 * one audit entry records the decision.
 */
export async function mergeConflict(scope: EnvScope, id: string, now: number, actor: OperatorActor = CLI_ACTOR, tasks?: TaskQueue): Promise<MergeReport> {
  requireIn(scope, id);
  // Every customer of the conflict takes its turn with their other writers on this instance
  // (store/writeQueue.ts); the transaction below re-reads the conflict and decides.
  const named = openConflict(await scope.get(conflictRef(scope, id)), id);
  const { report, webhookFanouts } = await inCustomerTurn(scope, [named.canonicalCustomerId, ...named.otherCustomerIds], () => mergeInTransaction(scope, id, now, actor));
  // With a task queue (the dashboard), the merge's webhook events fan out now; without one (the
  // CLI), the webhook relay fans them out from the outbox a minute later.
  if (tasks) await dispatchWebhookEvents(tasks, scope, webhookFanouts);
  return report;
}

function mergeInTransaction(scope: EnvScope, id: string, now: number, actor: OperatorActor): Promise<{ report: MergeReport; webhookFanouts: WebhookFanout[] }> {
  return runIdentityTransaction(scope, async (tx) => {
    const conflict = openConflict(await tx.get(conflictRef(scope, id)), id);
    const canonicalId = conflict.canonicalCustomerId;
    const others = conflict.otherCustomerIds;
    const all = [canonicalId, ...others];
    // Customers and their projections in one read: the projections order this merge after every
    // earlier entitlement change of each customer and carry their change sequences.
    const [customerSnaps, projectionSnaps, [directorySnap]] = await readGroupsInTx(tx, all.map((c) => customerRef(scope, c)), all.map((c) => projectionRef(scope, c)), [webhookDirectoryRef(scope)]);
    const webhookDirectory = directoryOf(directorySnap);
    const customers = customerSnaps.map((s, i) => {
      const record = s.data() ?? null;
      if (!record || record.status !== 'active') throw new DomainError('conflict', `Customer ${all[i]} is no longer active (${record?.status ?? 'missing'}); it cannot be merged.`);
      return record;
    });
    const entries = await tx.get(identityIndexCollection(scope).where('customerId', 'in', others));
    const grants = await readGrantsOfCustomers(tx, scope, all);

    const [canonical, ...merged] = customers;
    for (const entry of entries.docs) tx.update(entry.ref, { customerId: canonicalId, updatedAt: now });
    // Every grant of the merged customers moves to the canonical one: their keys vanish, the
    // canonical customer's may change; one writer records both sides.
    const moved = grants.filter((g) => g.customerId !== canonicalId).map((g) => ({ ...g, customerId: canonicalId }));
    const movedGrants = moved.length;
    const auditEventId = `srv_merge_${randomToken(24)}`;
    const applied = applyGrantChanges(tx, scope, {
      customers: all.map((customerId, i) => ({ customerId, projection: projectionSnaps[i], grants: grants.filter((g) => g.customerId === customerId) })),
      changes: moved,
      cause: { kind: 'operator', rail: 'manual', auditEventId, eventType: MERGE_EVENT_TYPE },
      now,
      webhookDirectory,
    });

    const seen = new Set(canonical.identities.map((i) => identityDocId(i.kind, i.id)));
    const identities = [...canonical.identities];
    let traits = {};
    for (const record of merged) {
      for (const identity of record.identities) {
        if (!seen.has(identityDocId(identity.kind, identity.id))) identities.push(identity);
        seen.add(identityDocId(identity.kind, identity.id));
      }
      traits = mergeTraits(traits, record.traits ?? {});
    }
    tx.update(customerRef(scope, canonicalId), {
      identities,
      traits: mergeTraits(traits, canonical.traits ?? {}), // the canonical customer's own values win
      email: canonical.email ?? merged.find((m) => m.email)?.email ?? null,
      updatedAt: now,
    });
    for (const other of others) tx.update(customerRef(scope, other), { status: 'merged', mergedInto: canonicalId, identities: [], updatedAt: now });
    tx.update(conflictRef(scope, id), { status: 'merged', resolvedAt: now });

    appendAudit(tx, scope, {
      eventId: auditEventId,
      rail: 'manual',
      eventType: MERGE_EVENT_TYPE,
      customerId: canonicalId,
      subscriptionId: null,
      decision: 'applied',
      reason: `Operator merged ${others.join(', ')} into ${canonicalId} after reviewing conflict ${id}.`,
      fromState: 'separate',
      toState: 'merged',
      signatureVerified: false,
      reconciledWithProvider: false,
      rawEventReceivedAt: conflict.createdAt,
      processedAt: now,
      details: { conflictId: id, mergedCustomerIds: others, movedIdentities: entries.size, movedGrants, ...actorDetails(actor) },
    });
    const mergedEvent = customerMergedEvent(scope, { canonicalCustomerId: canonicalId, mergedCustomerIds: others, auditEventId, at: now });
    const mergedFanout = appendWebhookEvent(tx, scope, mergedEvent, webhookDirectory);
    return {
      report: { conflictId: id, decision: 'merged', canonicalCustomerId: canonicalId, mergedCustomerIds: others, movedIdentities: entries.size, movedGrants, auditEventId },
      webhookFanouts: [...(mergedFanout ? [mergedFanout] : []), ...applied.webhookFanouts],
    };
  });
}

function openConflict(snapshot: DocumentSnapshot<ConflictRecord>, id: string): ConflictRecord {
  const conflict = snapshot.data();
  if (!conflict) throw new DomainError('not_found', `No conflict ${id}.`);
  if (conflict.status !== 'open') throw new DomainError('conflict', `Conflict ${id} is already resolved (${conflict.status}).`);
  return conflict;
}
