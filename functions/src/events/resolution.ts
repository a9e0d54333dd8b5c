import type { DocumentReference } from 'firebase-admin/firestore';
import type { Deps } from '../app/deps';
import type { Hint } from '../identity/link';
import type { CustomerRecord } from '../identity/model';
import { linkHints } from '../identity/repository';
import { EnvScope } from '../store/scope';
import { KnownIdentities } from './knownIdentities';
import { eventLogs } from './logs';
import type { IdentityHints, StoredEvent } from './model';
import { attachCustomer, eventRef } from './repository';
import { parseIdentityResolutionPayload } from './resolutionTask';

/**
 * The identity-resolution task (queue `identityResolution`): resolves the hints of the events
 * of one landed batch to a customer of the same project and environment, links hints that
 * co-occur through the identity repository's `linkHints` (identify's rules: unknown hints join
 * the known customer, a customer is created when none is known, and hints of two different
 * customers queue a conflict for review and are never merged), then attaches
 * `serviceCustomerId` to the stored events.
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
 * Idempotent: a second run finds the links in place, gets the same customers back and writes
 * only events whose customer changed. Throwing (a store failure) makes the queue retry.
 */
export async function resolveEventIdentities(payload: Record<string, unknown>, deps: Deps): Promise<void> {
  const task = parseIdentityResolutionPayload(payload);
  if (!task) {
    eventLogs.resolutionPayloadInvalid('expected {projectId, env, eventDocIds}');
    return;
  }
  const scope = new EnvScope(deps.db, task.projectId, task.env);
  const refs = task.eventDocIds.map((docId) => eventRef(scope, docId));
  const snapshots = await scope.getAll(...refs);
  const events = snapshots.flatMap((snapshot, i) => (snapshot.exists ? [{ ref: refs[i], event: snapshot.data() as StoredEvent }] : []));
  const missing = refs.length - events.length;

  const groups = new Map<string, { hints: IdentityHints; events: { ref: DocumentReference; event: StoredEvent }[] }>();
  for (const item of events) {
    const key = hintsKey(item.event.hints);
    const group = groups.get(key) ?? { hints: item.event.hints, events: [] };
    group.events.push(item);
    groups.set(key, group);
  }

  const known = await KnownIdentities.read(scope, [...groups.values()].map((g) => g.hints));
  const now = deps.clock.now();
  const write = scope.batch();
  let attached = 0;
  let unresolved = 0;
  for (const group of groups.values()) {
    const customerId = await resolveHints(scope, group.hints, known, now);
    if (!customerId) {
      unresolved += group.events.length;
      continue;
    }
    for (const { ref, event } of group.events) {
      if (event.serviceCustomerId === customerId) continue;
      attachCustomer(write, ref, customerId, now);
      attached += 1;
    }
  }
  if (attached > 0) await scope.commit(write);
  if (unresolved > 0) eventLogs.resolutionUnresolved(task.projectId, task.env, unresolved, 'only a serviceCustomerId hint naming no active customer of this partition');
  eventLogs.resolutionDone(task.projectId, task.env, events.length, attached, missing);
}

async function resolveHints(scope: EnvScope, hints: IdentityHints, known: KnownIdentities, now: number): Promise<string | null> {
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
  const result = await linkHints(scope, linking, 'self_asserted', now);
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
