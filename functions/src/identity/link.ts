import type { DocumentSnapshot, Transaction } from 'firebase-admin/firestore';
import type { EnvScope } from '../store/scope';
import { writeKeys, writeQueue } from '../store/writeQueue';
import { conflictId, conflictRef, type ConflictRecord } from './conflictModel';
import { identityDocId, newCustomerId, type CustomerRecord, type IdentityIndexEntry, type IdentityKind } from '../customers/model';
import { customerRef, identityRef } from '../customers/refs';
import { journalDeviceMove, ownedByAnotherUser, type DeviceMove, type MoveSurface } from './deviceMoves';
import { mergeTraits, traitsEqual, type Traits } from './traits';
import { runIdentityTransaction } from './transactions';
import { admitCall, VELOCITY_LIMIT, VELOCITY_WINDOW_MS, VelocityExceeded } from './velocity';

export type Assurance = IdentityIndexEntry['assurance'];

export interface Hint {
  kind: IdentityKind;
  id: string;
}

export interface LinkRequest {
  /** In order of authority: on a conflict, a developer hint's customer wins, else the first known. */
  hints: Hint[];
  assurance: Assurance;
  now: number;
  /** Identify only: profile fields merged into the canonical customer. */
  profile?: { email: string | null; traits: Traits };
  /** Identify only: enforce the per-userId velocity cap on the developer hint's document. */
  velocityUserId?: string;
  /** A verified identity token was presented on this device: stamp its anonymous binding. */
  deviceVerified?: boolean;
  /**
   * Identify paths only: move a newcomer's device (bound to another developer user's customer
   * while this user has none yet) to the newcomer's new customer, journalled under this surface
   * (deviceMoves.ts). Absent: such a device keeps its binding and neither joins nor conflicts
   * (out-of-band event resolution).
   */
  moveForeignDevices?: MoveSurface;
  /**
   * The project requires a verified identity token to link a new device to a verified user and
   * this call has none: throw VerifiedIdentityRequired instead of linking (nothing is written).
   */
  refuseNewDeviceForVerifiedUser?: boolean;
}

export interface LinkResult {
  customerId: string | null;
  mergePending: boolean;
  created: boolean;
  conflictId: string | null;
  /** Devices whose binding moved here from another developer user's customer. */
  devicesMoved: number;
}

/** Thrown inside the transaction (so nothing is written): see LinkRequest.refuseNewDeviceForVerifiedUser. */
export class VerifiedIdentityRequired extends Error {
  constructor() {
    super('a verified identity token is required to link a new device to this user');
    this.name = 'VerifiedIdentityRequired';
  }
}

const ASSURANCE_RANK: Record<Assurance, number> = { self_asserted: 0, rail: 1, verified: 2 };

/**
 * The transactional core of identify (and of out-of-band resolution of event hints).
 *
 * Within one transaction: read every hint's identity-index document (direct reads by
 * deterministic id) and the customers they point at; then
 * - no hint known → create one customer and an index entry per hint with `create()`, so two
 *   racing calls cannot both succeed: the loser retries, reads the winner's entries and links
 *   to that customer;
 * - one customer → link the unknown hints to it;
 * - several customers → keep them apart, return the developer-user-id customer as canonical,
 *   link unknown hints to it, and queue one conflict record for operator review (nothing of
 *   either customer moves: the spec's merge rule);
 * - another person's identifier (a device or rail identifier whose customer carries other
 *   developer ids) never joins this user and never makes this user join it: with the user
 *   known it is a conflict as above; for a newcomer (no customer yet) a rail identifier is a
 *   conflict with the newcomer's new customer, and a device is the shared-device case: identify
 *   moves it to the newcomer's own customer (journalled), other callers leave it (deviceMoves.ts).
 * Entries pointing at a customer that is being erased, erased or merged away are stale and are
 * replaced, so a forgotten user who logs in again starts as a new customer.
 */
export async function linkIdentities(scope: EnvScope, request: LinkRequest): Promise<LinkResult> {
  const hints = uniqueHints(request.hints);
  if (hints.length === 0) return { customerId: null, mergePending: false, created: false, conflictId: null, devicesMoved: 0 };
  // Calls on this instance that share an identifier take turns (store/writeQueue.ts).
  const keys = hints.map((hint) => writeKeys.identity(scope, identityDocId(hint.kind, hint.id)));
  return writeQueue.run(keys, () => linkTransactionally(scope, hints, request));
}

/**
 * The transaction alone, without the per-instance queue: what calls racing from different
 * instances run. Exported so the uniqueness guarantee can be tested on its own.
 * @internal
 */
export async function linkAcrossInstances(scope: EnvScope, request: LinkRequest): Promise<LinkResult> {
  const hints = uniqueHints(request.hints);
  if (hints.length === 0) return { customerId: null, mergePending: false, created: false, conflictId: null, devicesMoved: 0 };
  return linkTransactionally(scope, hints, request);
}

const linkTransactionally = (scope: EnvScope, hints: Hint[], request: LinkRequest): Promise<LinkResult> =>
  runIdentityTransaction(scope, (tx) => linkInTransaction(tx, scope, hints, request));

async function linkInTransaction(tx: Transaction, scope: EnvScope, hints: Hint[], request: LinkRequest): Promise<LinkResult> {
  const { now } = request;
  const refs = hints.map((hint) => identityRef(scope, hint.kind, hint.id));
  const snapshots = await tx.getAll(...refs);
  const entries = snapshots.map((s) => (s.data() ?? null));

  const pointedAt = [...new Set(entries.flatMap((e) => (e ? [e.customerId] : [])))];
  const customers = new Map<string, CustomerRecord>();
  if (pointedAt.length > 0) {
    const customerSnaps = await tx.getAll(...pointedAt.map((id) => customerRef(scope, id)));
    for (const snap of customerSnaps) {
      const record = snap.data() ?? null;
      if (record && record.status === 'active') customers.set(record.customerId, record);
    }
  }
  const live = entries.map((e) => (e && customers.has(e.customerId) ? e : null));

  const roles = classifyHints(hints, live, customers);
  const { developerIndex, foreign, newcomerDevice } = roles;

  if (request.refuseNewDeviceForVerifiedUser && developerIndex >= 0) refuseUnprovenDevice(hints, live, developerIndex);
  const velocityIndex = request.velocityUserId === undefined ? -1 : hints.findIndex((h) => h.kind === 'developer' && h.id === request.velocityUserId);
  const velocityTimes = velocityIndex >= 0 ? enforceVelocity(entries[velocityIndex], now) : null;

  // A newcomer's device takes no part in choosing the customer or in a conflict: identify moves
  // it below, other callers leave it where it is. Everything else that is known does.
  const anchored = live.map((e, i) => (newcomerDevice[i] ? null : e));
  const anchoredCustomerIds = [...new Set(anchored.flatMap((e) => (e ? [e.customerId] : [])))];

  let canonical: string;
  let created = false;
  let mergePending = false;
  let conflict: string | null = null;
  const liveDeveloper = hints.findIndex((h, i) => h.kind === 'developer' && anchored[i] !== null);
  // Another person's identifier never becomes this caller's customer: without a known user
  // customer, the first known identifier of no other person decides, else a new customer.
  const ownCandidate = anchored.findIndex((e, i) => e !== null && !foreign[i]);
  if (liveDeveloper >= 0) canonical = anchored[liveDeveloper]!.customerId;
  else if (ownCandidate >= 0) canonical = anchored[ownCandidate]!.customerId;
  else {
    canonical = newCustomerId();
    created = true;
  }
  const involved = [...new Set([canonical, ...anchoredCustomerIds])];
  if (involved.length > 1) {
    conflict = conflictId(scope, involved);
    const existing = await tx.get(conflictRef(scope, conflict));
    mergePending = queueConflict(tx, scope, existing, conflict, canonical, involved, hints, anchored, now);
  }

  // Writes (all reads are done).
  const linkedNow: Hint[] = [];
  const moves: DeviceMove[] = [];
  hints.forEach((hint, i) => {
    const ref = refs[i];
    const entry = live[i];
    const extra: Partial<IdentityIndexEntry> = {};
    if (i === velocityIndex && velocityTimes) extra.recentIdentifies = velocityTimes;
    if (request.deviceVerified && hint.kind === 'anonymous') extra.verifiedAt = now;
    if (newcomerDevice[i]) {
      if (!request.moveForeignDevices) return; // out of band: the binding stays, nobody joins
      // A fresh entry: the previous owner's tier-2 stamp never vouches for the new user.
      const moved: IdentityIndexEntry = { kind: hint.kind, id: hint.id, customerId: canonical, assurance: request.assurance, createdAt: entry!.createdAt, updatedAt: now, ...extra, movedFrom: { customerId: entry!.customerId, at: now } };
      tx.set(ref, moved);
      linkedNow.push(hint);
      moves.push({ fromCustomerId: entry!.customerId, toCustomerId: canonical });
      return;
    }
    if (!entry) {
      const fresh: IdentityIndexEntry = { kind: hint.kind, id: hint.id, customerId: canonical, assurance: request.assurance, createdAt: now, updatedAt: now, ...extra };
      if (snapshots[i].exists) tx.set(ref, fresh);
      else tx.create(ref, fresh);
      linkedNow.push(hint);
      return;
    }
    const update: Partial<IdentityIndexEntry> = { ...extra };
    if (entry.customerId === canonical && ASSURANCE_RANK[request.assurance] > ASSURANCE_RANK[entry.assurance]) update.assurance = request.assurance;
    if (entry.customerId !== canonical) delete update.verifiedAt; // never vouch for another customer's device
    if (Object.keys(update).length > 0) tx.update(ref, { ...update, updatedAt: now });
  });

  writeCustomer(tx, scope, canonical, created ? null : customers.get(canonical)!, linkedNow, request);
  if (moves.length > 0) {
    releaseMovedDevices(tx, scope, customers, hints.filter((_, i) => newcomerDevice[i]), moves, now);
    for (const move of moves) journalDeviceMove(tx, scope, move, { surface: request.moveForeignDevices!, assurance: request.assurance, now });
  }
  return { customerId: canonical, mergePending, created, conflictId: conflict, devicesMoved: moves.length };
}

interface HintRoles {
  /** The developer hint's position, or -1. */
  developerIndex: number;
  /**
   * Another person's identifier: known, not a developer id, and its customer carries developer
   * ids none of which is this call's. It never joins this user nor makes this user join it.
   */
  foreign: boolean[];
  /**
   * A newcomer's device: a foreign anonymous id while this call's user has no customer yet (the
   * shared-device case). The newcomer gets its own customer; identify paths move the device to it.
   */
  newcomerDevice: boolean[];
}

/** The roles the hints play in this link (see HintRoles); pure. */
function classifyHints(hints: Hint[], live: (IdentityIndexEntry | null)[], customers: Map<string, CustomerRecord>): HintRoles {
  const developerIds = hints.filter((h) => h.kind === 'developer').map((h) => h.id);
  const developersCustomers = new Set(live.flatMap((e, i) => (e && hints[i].kind === 'developer' ? [e.customerId] : [])));
  const foreign = live.map(
    (e, i) => e !== null && hints[i].kind !== 'developer' && developerIds.length > 0 && !developersCustomers.has(e.customerId) && ownedByAnotherUser(customers.get(e.customerId)!, developerIds),
  );
  const userKnown = developersCustomers.size > 0;
  return {
    developerIndex: hints.findIndex((h) => h.kind === 'developer'),
    foreign,
    newcomerDevice: foreign.map((f, i) => f && !userKnown && hints[i].kind === 'anonymous'),
  };
}

/**
 * The project requires a token to link a new device to a user who has proven their identity:
 * refuse when the user's entry is verified and a device hint is not already theirs.
 */
function refuseUnprovenDevice(hints: Hint[], live: (IdentityIndexEntry | null)[], developerIndex: number): void {
  const user = live[developerIndex];
  if (!user || user.assurance !== 'verified') return;
  if (hints.some((hint, i) => hint.kind === 'anonymous' && live[i]?.customerId !== user.customerId)) throw new VerifiedIdentityRequired();
}

/** Removes each moved device from its previous customer's identity mirror (one update per customer). */
function releaseMovedDevices(tx: Transaction, scope: EnvScope, customers: Map<string, CustomerRecord>, moved: Hint[], moves: DeviceMove[], now: number): void {
  const gone = new Set(moved.map((hint) => identityDocId(hint.kind, hint.id)));
  for (const from of new Set(moves.map((move) => move.fromCustomerId))) {
    const record = customers.get(from)!;
    const kept = record.identities.filter((identity) => !gone.has(identityDocId(identity.kind, identity.id)));
    if (kept.length !== record.identities.length) tx.update(customerRef(scope, from), { identities: kept, updatedAt: now });
  }
}

function enforceVelocity(entry: IdentityIndexEntry | null, now: number): number[] {
  const decision = admitCall(entry?.recentIdentifies ?? [], now, VELOCITY_LIMIT, VELOCITY_WINDOW_MS);
  if (!decision.admitted) throw new VelocityExceeded(decision.retryAfterMs);
  return decision.times;
}

/** Creates the conflict once; returns whether a merge is still pending review. */
function queueConflict(
  tx: Transaction,
  scope: EnvScope,
  existing: DocumentSnapshot<ConflictRecord>,
  id: string,
  canonical: string,
  customerIds: string[],
  hints: Hint[],
  live: (IdentityIndexEntry | null)[],
  now: number,
): boolean {
  const stored = existing.data();
  if (stored) return stored.status === 'open';
  const record: ConflictRecord = {
    conflictId: id,
    projectId: scope.projectId,
    env: scope.env,
    status: 'open',
    canonicalCustomerId: canonical,
    otherCustomerIds: customerIds.filter((c) => c !== canonical),
    // The known identifiers, and a new user's id with the customer it gets now.
    identities: hints.flatMap((hint, i) => (live[i] ? [{ kind: hint.kind, id: hint.id, customerId: live[i]!.customerId }] : hint.kind === 'developer' ? [{ kind: hint.kind, id: hint.id, customerId: canonical }] : [])),
    createdAt: now,
    resolvedAt: null,
  };
  tx.create(conflictRef(scope, id), record);
  return true;
}

function writeCustomer(tx: Transaction, scope: EnvScope, customerId: string, current: CustomerRecord | null, linkedNow: Hint[], request: LinkRequest): void {
  const { now, profile } = request;
  if (!current) {
    const record: CustomerRecord = {
      customerId,
      createdAt: now,
      updatedAt: now,
      email: profile?.email ?? null,
      traits: mergeTraits({}, profile?.traits ?? {}),
      identities: linkedNow.map(({ kind, id }) => ({ kind, id })),
      status: 'active',
    };
    tx.create(customerRef(scope, customerId), record);
    return;
  }
  const update: Partial<CustomerRecord> = {};
  if (linkedNow.length > 0) {
    const known = new Set(current.identities.map((i) => identityDocId(i.kind, i.id)));
    const added = linkedNow.filter((h) => !known.has(identityDocId(h.kind, h.id))).map(({ kind, id }) => ({ kind, id }));
    if (added.length > 0) update.identities = [...current.identities, ...added];
  }
  if (profile?.email && profile.email !== current.email) update.email = profile.email;
  if (profile && Object.keys(profile.traits).length > 0) {
    const merged = mergeTraits(current.traits ?? {}, profile.traits);
    if (!traitsEqual(merged, current.traits ?? {})) update.traits = merged;
  }
  if (Object.keys(update).length > 0) tx.update(customerRef(scope, customerId), { ...update, updatedAt: now });
}

function uniqueHints(hints: Hint[]): Hint[] {
  const seen = new Set<string>();
  return hints.filter((hint) => {
    const key = identityDocId(hint.kind, hint.id);
    if (seen.has(key) || hint.id === '') return false;
    seen.add(key);
    return true;
  });
}
