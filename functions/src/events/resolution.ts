import type { DocumentSnapshot } from 'firebase-admin/firestore';
import type { BackgroundDeps } from '../tasks/background';
import type { Hint } from '../identity/link';
import type { CustomerRecord } from '../customers/model';
import { identityMemory, type IdentityMemory } from '../identity/ports';
import { linkObservedHints } from '../identity/repository';
import { isAlreadyExists } from '../store/contention';
import { EnvScope } from '../store/scope';
import { KnownIdentities } from './knownIdentities';
import { eventLogs } from './logs';
import { decodeLandedBatch } from './batchCodec';
import { eventDocId, type IdentityHints, type IngestedEventFields, type LandedBatch } from './model';
import { StoredEventRollups, type EventToStore } from './storedEventRollups';
import { batchRef, createEvent, deleteLandedBatch, eventsCollection, putEvent } from './repository';
import { parseIdentityResolutionPayload } from './resolutionTask';

/**
 * The identity-resolution task (queue `identityResolution`): stores the events of one landing
 * and attaches each to its customer. It reads the landing's pending batch documents, resolves the
 * events' hints to a customer of the same project and environment, links hints that co-occur
 * through the identity repository's `linkObservedHints`, which applies exactly identify's rules
 * (events never link more than an identify call could): the project's require-verified policy,
 * the per-user velocity cap, hints of two different customers queue a conflict for review and
 * are never merged (developer-user-id customer canonical), another person's device or rail
 * identifier never joins the event's user, and a newcomer's device moves to the newcomer's own
 * customer as identify would move it. A link those rules refuse is not made: the events go to
 * their device's customer. Then it writes every event to `events/{eventDocId}`
 * with its `serviceCustomerId` and removes the batch documents, in one commit.
 *
 * A `serviceCustomerId` hint is the SDK's claim of a customer it learned from identify. It counts
 * only when it names an active customer of this partition; the claim then takes part in linking
 * through one of that customer's own identifiers (its developer id when it has one), placed after
 * the event's developer hint and before its anonymous hint, so identify's authority order holds:
 * a known developer id wins, then the claimed customer, then a known device. A claim that names
 * a customer with a different developer id than the event's is ignored (a stale SDK cache must not
 * join two users). A claimed customer without any identifier is attached as is.
 *
 * Events whose hints are all already linked to one active customer skip the transaction (see
 * KnownIdentities): the steady state of a known device costs reads only.
 *
 * Idempotent: event documents are keyed by event id, so storing a batch twice writes the same
 * records; a batch already stored and removed is simply absent. A retry that replaced a batch
 * while it was being stored makes the commit fail (the removal is conditional), and the queue
 * runs the task again on the newer copy. Throwing (a store failure) makes the queue retry.
 */
export async function resolveEventIdentities(payload: Record<string, unknown>, deps: BackgroundDeps): Promise<void> {
  const task = parseIdentityResolutionPayload(payload);
  if (!task) {
    eventLogs.resolutionPayloadInvalid('expected {projectId, env, batchDocIds}');
    return;
  }
  await storeLandedBatches(new EnvScope(deps.db, task.projectId, task.env), task.batchDocIds, deps.clock.now(), identityMemory(deps));
}

/** Stores the events of the given pending batches (see resolveEventIdentities). */
async function storeLandedBatches(scope: EnvScope, batchDocIds: string[], now: number, memory: IdentityMemory): Promise<void> {
  const snapshots = await scope.getAll(...batchDocIds.map((id) => batchRef(scope, id)));
  const pending = snapshots.filter((snapshot) => snapshot.exists);
  const events: IngestedEventFields[] = [];
  const readable: DocumentSnapshot<LandedBatch>[] = [];
  for (const snapshot of pending) {
    const batch = snapshot.data()!;
    const { codec: _codec, eventCount: _count, events: _payload, ...landing } = batch;
    try {
      for (const event of decodeLandedBatch(batch)) events.push({ ...event, ...landing });
      readable.push(snapshot);
    } catch (err) {
      // Only a bug writes such a document: keep it for inspection (its TTL removes it).
      eventLogs.batchUnreadable(scope.projectId, scope.env, snapshot.id, (err as Error).message);
    }
  }
  if (readable.length === 0) {
    eventLogs.resolutionDone(scope.projectId, scope.env, 0, 0, batchDocIds.length - pending.length);
    return;
  }

  const groups = new Map<string, { hints: IdentityHints; events: IngestedEventFields[] }>();
  for (const fields of events) {
    const key = hintsKey(fields.hints);
    const group = groups.get(key) ?? { hints: fields.hints, events: [] };
    group.events.push(fields);
    groups.set(key, group);
  }

  const known = await KnownIdentities.read(scope, [...groups.values()].map((g) => g.hints));
  let attached = 0;
  let unresolved = 0;
  const resolvedEvents: EventToStore[] = [];
  const eventDocs = eventsCollection(scope);
  for (const group of groups.values()) {
    const serviceCustomerId = await resolveHints(scope, group.hints, known, now, memory);
    if (serviceCustomerId) attached += group.events.length;
    else unresolved += group.events.length;
    for (const fields of group.events) resolvedEvents.push({ ref: eventDocs.doc(eventDocId(fields.eventId)), fields, customerId: serviceCustomerId });
  }
  // Two copies of one event id: one record, the later copy wins (as when each was a `set`).
  const toStore = [...new Map(resolvedEvents.map((event) => [event.ref.path, event])).values()];
  try {
    // Almost every landing is new to the store: create its events without reading them first.
    await commitStoredEvents(scope, toStore, readable, now, await StoredEventRollups.read(scope, toStore, { eventsAssumedNew: true }));
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    // A retried landing (or an error group another task created meanwhile): nothing was
    // written; read which events exist and store those as before (counted once).
    await commitStoredEvents(scope, toStore, readable, now, await StoredEventRollups.read(scope, toStore));
  }
  if (unresolved > 0) eventLogs.resolutionUnresolved(scope.projectId, scope.env, unresolved, 'only a serviceCustomerId hint naming no active customer of this partition');
  eventLogs.resolutionDone(scope.projectId, scope.env, events.length, attached, batchDocIds.length - pending.length);
}

/**
 * One commit: the events, their report rollups and the removal of their batches
 * (MAX_BATCHES_PER_TASK keeps it within the 500 writes a commit takes). Events the read found
 * absent are created, so one stored meanwhile fails the commit instead of being counted twice.
 */
async function commitStoredEvents(scope: EnvScope, toStore: readonly EventToStore[], readable: readonly DocumentSnapshot[], now: number, rollups: StoredEventRollups): Promise<void> {
  const write = scope.batch();
  for (const event of toStore) {
    const resolved = event.customerId ? { serviceCustomerId: event.customerId, resolvedAt: now } : null;
    if (rollups.isStored(event.ref)) putEvent(write, event.ref, event.fields, resolved);
    else createEvent(write, event.ref, event.fields, resolved);
  }
  rollups.write(write, scope, readable[0].id, toStore);
  for (const snapshot of readable) deleteLandedBatch(write, snapshot);
  await scope.commit(write);
}


async function resolveHints(scope: EnvScope, hints: IdentityHints, known: KnownIdentities, now: number, memory: IdentityMemory): Promise<string | null> {
  const claim = usableClaim(hints, known);
  const anchor = claim ? anchorIdentifier(claim) : null;
  if (claim && !anchor) return claim.customerId;
  const linking: Hint[] = [];
  if (hints.developerUserId) linking.push({ kind: 'developer', id: hints.developerUserId });
  if (anchor) linking.push(anchor); // linkHints drops it when it repeats the developer hint
  if (hints.anonymousId) linking.push({ kind: 'anonymous', id: hints.anonymousId });
  if (linking.length === 0) return null;
  // Already linked to one active customer: linkHints would answer the same and write nothing.
  const eventHints = linking.filter((hint) => hint !== anchor);
  if (claim && eventHints.length === 0) return claim.customerId;
  const settled = known.settledCustomer(eventHints);
  if (settled !== null && (!claim || settled === claim.customerId)) return settled;
  const result = await linkObservedHints(scope, linking, { now, memory, velocityUserId: hints.developerUserId });
  if (result.refused) eventLogs.linkRefused(scope.projectId, scope.env, result.refused);
  return result.customerId;
}

/**
 * The claimed customer, unless the claim is unknown, inactive, or contradicts the event's own
 * developer id (a customer with a different developer id: the SDK's cached customer is stale,
 * and linking the two would merge two users).
 */
function usableClaim(hints: IdentityHints, known: KnownIdentities): CustomerRecord | null {
  const claim = hints.serviceCustomerId ? known.activeCustomer(hints.serviceCustomerId) : null;
  if (!claim || !hints.developerUserId) return claim;
  const developerIds = (claim.identities ?? []).filter((identity) => identity.kind === 'developer').map((identity) => identity.id);
  return developerIds.length === 0 || developerIds.includes(hints.developerUserId) ? claim : null;
}

/** The claimed customer's own identifier that stands for it in linking: its developer id if any. */
function anchorIdentifier(customer: CustomerRecord): Hint | null {
  const identities = customer.identities ?? [];
  return identities.find((identity) => identity.kind === 'developer') ?? identities[0] ?? null;
}

const hintsKey = (hints: IdentityHints): string => JSON.stringify([hints.developerUserId, hints.anonymousId, hints.serviceCustomerId]);
