import type { DocumentSnapshot, Firestore } from 'firebase-admin/firestore';
import { appendAudit } from '../audit/append';
import { DomainError } from '../errors/domain';
import { projectionRef, readGrantsOfCustomers } from '../entitlements/projection';
import { MERGE_EVENT_TYPE } from '../entitlements/changeModel';
import { applyGrantChanges } from '../entitlements/writer';
import { randomToken } from '../keys/format';
import { customerMergedEvent } from '../webhooks/customerEvents';
import { appendWebhookEvent } from '../webhooks/outbox';
import type { Env } from '../store/env';
import { EnvScope } from '../store/scope';
import { inCustomerTurn } from '../store/writeQueue';
import { conflictRef, IDENTITY_CONFLICTS, parseConflictId, type ConflictRecord } from './conflictModel';
import { identityDocId, IDENTITY_INDEX, type CustomerRecord } from './model';
import { customerRef } from './refs';
import { mergeTraits } from './traits';
import { runIdentityTransaction } from './transactions';

/** Operator review of identity merge conflicts (`tessera conflicts list|resolve`). */

export async function listConflicts(db: Firestore, projectId: string, env: Env, status: ConflictRecord['status'] = 'open'): Promise<ConflictRecord[]> {
  const scope = new EnvScope(db, projectId, env);
  const snapshot = await scope.collection(IDENTITY_CONFLICTS).where('status', '==', status).get();
  return snapshot.docs.map((d) => d.data() as ConflictRecord).sort((a, b) => a.createdAt - b.createdAt || a.conflictId.localeCompare(b.conflictId));
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

const scopeOf = (db: Firestore, id: string): EnvScope => {
  const partition = parseConflictId(id);
  if (!partition) throw new DomainError('invalid_argument', `Not a conflict id: ${id}.`);
  return new EnvScope(db, partition.projectId, partition.env);
};

export async function keepSeparate(db: Firestore, id: string, now: number): Promise<MergeReport> {
  const scope = scopeOf(db, id);
  return runIdentityTransaction(scope, async (tx) => {
    const conflict = openConflict(await tx.get(conflictRef(scope, id)), id);
    tx.update(conflictRef(scope, id), { status: 'kept_separate', resolvedAt: now });
    return { conflictId: id, decision: 'kept_separate', canonicalCustomerId: conflict.canonicalCustomerId, mergedCustomerIds: [], movedIdentities: 0, movedGrants: 0, auditEventId: null };
  });
}

/**
 * Merges the conflict's other customers into its canonical customer in ONE transaction: every
 * identity-index entry and every grant moves to the canonical customer, its projection is
 * rebuilt from the combined grants, the others become `merged` tombstones pointing at it, and
 * one audit entry records the decision.
 */
export async function mergeConflict(db: Firestore, id: string, now: number): Promise<MergeReport> {
  const scope = scopeOf(db, id);
  // Every customer of the conflict takes its turn with their other writers on this instance
  // (store/writeQueue.ts); the transaction below re-reads the conflict and decides.
  const named = openConflict(await scope.get(conflictRef(scope, id)), id);
  return inCustomerTurn(scope, [named.canonicalCustomerId, ...named.otherCustomerIds], () => mergeInTransaction(scope, id, now));
}

function mergeInTransaction(scope: EnvScope, id: string, now: number): Promise<MergeReport> {
  return runIdentityTransaction(scope, async (tx) => {
    const conflict = openConflict(await tx.get(conflictRef(scope, id)), id);
    const canonicalId = conflict.canonicalCustomerId;
    const others = conflict.otherCustomerIds;
    const all = [canonicalId, ...others];
    // Customers and their projections in one read: the projections order this merge after every
    // earlier entitlement change of each customer and carry their change sequences.
    const snaps = await tx.getAll(...all.map((c) => customerRef(scope, c)), ...all.map((c) => projectionRef(scope, c)));
    const customerSnaps = snaps.slice(0, all.length);
    const projectionSnaps = snaps.slice(all.length);
    const customers = customerSnaps.map((s, i) => {
      const record = s.exists ? (s.data() as CustomerRecord) : null;
      if (!record || record.status !== 'active') throw new DomainError('conflict', `Customer ${all[i]} is no longer active (${record?.status ?? 'missing'}); it cannot be merged.`);
      return record;
    });
    const entries = await tx.get(scope.collection(IDENTITY_INDEX).where('customerId', 'in', others));
    const grants = await readGrantsOfCustomers(tx, scope, all);

    const [canonical, ...merged] = customers;
    for (const entry of entries.docs) tx.update(entry.ref, { customerId: canonicalId, updatedAt: now });
    // Every grant of the merged customers moves to the canonical one: their keys vanish, the
    // canonical customer's may change; one writer records both sides.
    const moved = grants.filter((g) => g.customerId !== canonicalId).map((g) => ({ ...g, customerId: canonicalId }));
    const movedGrants = moved.length;
    const auditEventId = `srv_merge_${randomToken(24)}`;
    applyGrantChanges(tx, scope, {
      customers: all.map((customerId, i) => ({ customerId, projection: projectionSnaps[i], grants: grants.filter((g) => g.customerId === customerId) })),
      changes: moved,
      cause: { kind: 'operator', rail: 'manual', auditEventId, eventType: MERGE_EVENT_TYPE },
      now,
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
      details: { conflictId: id, mergedCustomerIds: others, movedIdentities: entries.size, movedGrants, surface: 'cli' },
    });
    // The outbox: fanned out by the webhook relay (an operator command has no task queue).
    appendWebhookEvent(tx, scope, customerMergedEvent(scope, { canonicalCustomerId: canonicalId, mergedCustomerIds: others, auditEventId, at: now }));
    return { conflictId: id, decision: 'merged', canonicalCustomerId: canonicalId, mergedCustomerIds: others, movedIdentities: entries.size, movedGrants, auditEventId };
  });
}

function openConflict(snapshot: DocumentSnapshot, id: string): ConflictRecord {
  if (!snapshot.exists) throw new DomainError('not_found', `No conflict ${id}.`);
  const conflict = snapshot.data() as ConflictRecord;
  if (conflict.status !== 'open') throw new DomainError('conflict', `Conflict ${id} is already resolved (${conflict.status}).`);
  return conflict;
}
