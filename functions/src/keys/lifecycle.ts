import { FieldValue, type Firestore, type Transaction } from 'firebase-admin/firestore';
import { appendAudit, newServerEventId } from '../audit/append';
import { type OperatorActor, operatorChangeEntry } from '../audit/operatorActor';
import { scopesOfProject } from '../store/partitions';
import { DomainError } from '../errors/domain';
import { DAY } from '../clock';
import { getApp } from '../projects/repository';
import type { AppRecord } from '../projects/model';
import type { Env } from '../store/env';
import { type KeyKind, maskSecret, mintKey, newKeyId, parseKey, sha256Hex } from './format';
import { keyActivityCollection, keyIndex, keyIndexRef } from './paths';
import { appRef, projectRef } from '../projects/paths';
import { type KeyActivity, type KeyRecord, keyState, type KeyState } from './record';
import { scopesForNewKey } from './scopes';
import { KEY_ID } from '../ids';

/** Key lifecycle: create, rotate with grace, revoke. Every rotation and revocation is journalled. */

export const DEFAULT_ROTATION_GRACE_MS = 7 * DAY;

export interface MintedKey {
  id: string;
  key: string;
}

/**
 * A change made by a signed-in operator (the dashboard): the key or app must belong to
 * `projectId` (else `not_found`, as for an unknown key), the journal names the operator, and an
 * audit entry (`api_key.created|rotated|revoked`) is appended in the same transaction.
 */
export interface OperatorCall {
  actor: OperatorActor;
  projectId: string;
  /** When set (the dashboard's environment switch), a key of the other environment is `not_found` too. */
  env?: Env;
}

const outside = (call: OperatorCall | undefined, record: { projectId: string; env: Env }): boolean =>
  call !== undefined && (record.projectId !== call.projectId || (call.env !== undefined && record.env !== call.env));

function auditKeyChange(db: Firestore, tx: Transaction, call: OperatorCall, env: Env, action: KeyActivity['action'], reason: string, details: Record<string, unknown>, now: number): string {
  const eventId = newServerEventId('key');
  appendAudit(tx, scopesOfProject(db, call.projectId)[env], operatorChangeEntry({
    eventId,
    eventType: `api_key.${action}`,
    reason,
    fromState: action === 'created' ? null : 'active',
    toState: action === 'revoked' ? 'revoked' : action === 'rotated' ? 'rotating' : 'active',
    now,
    actor: call.actor,
    details,
  }));
  return eventId;
}

const operatorOf = (call: OperatorCall | undefined): { operator?: string } => (call?.actor.operator ? { operator: call.actor.operator } : {});

function newRecord(app: AppRecord, kind: KeyKind, env: Env, key: string, now: number, scopes: string[]): KeyRecord {
  return {
    keyId: newKeyId(),
    kind,
    env,
    projectId: app.projectId,
    appId: app.appId,
    platform: app.platform,
    display: kind === 'publishable' ? key : maskSecret(key),
    hash: kind === 'secret' ? sha256Hex(key) : null,
    status: 'active',
    createdAt: now,
    revokedAt: null,
    graceEndsAt: null,
    rotatedToKeyId: null,
    scopes: kind === 'secret' ? scopes : [],
    allowedOrigins: app.allowedOrigins,
    bundleId: app.bundleId,
    packageName: app.packageName,
    appArchived: app.archived,
    projectArchived: false,
  };
}

function writeNewKey(db: Firestore, tx: Transaction, record: KeyRecord, key: string): void {
  tx.create(keyIndexRef(db, parseKey(key)!), record);
}

function journal(db: Firestore, tx: Transaction, appId: string, activity: KeyActivity): void {
  // The commit time orders entries that share a clock reading.
  tx.create(keyActivityCollection(db, appId).doc(), { ...activity, recordedAt: FieldValue.serverTimestamp() });
}

export interface CreateKeysInput {
  appId: string;
  env: Env;
  scopes?: string[];
  acknowledgeRowLevelData?: boolean;
  /** Seeding only: use these plaintexts (the committed demo keys) instead of minting. */
  fixedKeys?: { publishable: string; secret: string };
}

/** Mints the app's publishable and secret key for one environment; the plaintexts are returned once. */
type MintedKeys = { publishable: MintedKey; secret: MintedKey };
/** An operator's call (the dashboard) is audited, and the answer names its entry; the CLI and the seed are not. */
type Audited<T> = T & { auditEventId: string };

export async function createKeys(db: Firestore, input: CreateKeysInput, now: number): Promise<MintedKeys>;
export async function createKeys(db: Firestore, input: CreateKeysInput, now: number, call: OperatorCall): Promise<Audited<MintedKeys>>;
export async function createKeys(db: Firestore, input: CreateKeysInput, now: number, call?: OperatorCall): Promise<MintedKeys | Audited<MintedKeys>> {
  const scopes = scopesForNewKey(input.scopes ?? [], input.acknowledgeRowLevelData ?? false);
  return db.runTransaction(async (tx) => {
    const app = await getApp(db, input.appId, tx);
    if (call && app.projectId !== call.projectId) throw new DomainError('not_found', `No app ${input.appId}.`);
    const project = await tx.get(projectRef(db, app.projectId));
    if (app.archived || project.get('archived')) throw new DomainError('archived', `App ${app.appId} or its project is archived.`);
    const current = app.currentKeys[input.env];
    if (current.publishable || current.secret) {
      throw new DomainError('conflict', `App ${app.appId} already has ${input.env} keys; rotate them instead.`);
    }
    const pubKey = input.fixedKeys?.publishable ?? mintKey('publishable', input.env);
    const secretKey = input.fixedKeys?.secret ?? mintKey('secret', input.env);
    for (const [kind, key] of [['publishable', pubKey], ['secret', secretKey]] as const) {
      const parsed = parseKey(key);
      if (!parsed || parsed.kind !== kind || parsed.env !== input.env) throw new DomainError('invalid_argument', `Not a ${input.env} ${kind} key.`);
    }
    const pub = newRecord(app, 'publishable', input.env, pubKey, now, []);
    const secret = newRecord(app, 'secret', input.env, secretKey, now, scopes);
    writeNewKey(db, tx, pub, pubKey);
    writeNewKey(db, tx, secret, secretKey);
    tx.update(appRef(db, app.appId), { [`currentKeys.${input.env}`]: { publishable: pub.keyId, secret: secret.keyId } });
    journal(db, tx, app.appId, { action: 'created', keyId: pub.keyId, kind: 'publishable', env: input.env, at: now, ...operatorOf(call) });
    journal(db, tx, app.appId, { action: 'created', keyId: secret.keyId, kind: 'secret', env: input.env, at: now, ...operatorOf(call) });
    const minted = { publishable: { id: pub.keyId, key: pubKey }, secret: { id: secret.keyId, key: secretKey } };
    if (!call) return minted;
    const details = { appId: app.appId, keyIds: [pub.keyId, secret.keyId], secretDisplay: secret.display };
    return { ...minted, auditEventId: auditKeyChange(db, tx, call, input.env, 'created', `Operator created the ${input.env} keys of app ${app.appId}.`, details, now) };
  });
}

/** Finds a key document by its plaintext (either kind) or by its `key_…` id. */
async function findKeyRef(db: Firestore, keyOrId: string, tx: Transaction) {
  const parsed = parseKey(keyOrId);
  if (parsed) {
    const ref = keyIndexRef(db, parsed);
    const snapshot = await tx.get(ref);
    if (snapshot.exists) return snapshot;
  } else if (keyOrId.startsWith(KEY_ID.prefix)) {
    for (const kind of ['publishable', 'secret'] as const) {
      const result = await tx.get(keyIndex(db, kind).where('keyId', '==', keyOrId).limit(1));
      if (!result.empty) return result.docs[0];
    }
  }
  throw new DomainError('not_found', 'No such key.');
}

/**
 * Rotation mints the replacement in the same transaction that starts the old key's grace, so
 * there is never a moment with no working key. Grace 0 ends the old key at once.
 */
type RotatedKey = { newKey: MintedKey; oldKeyId: string; oldKeyExpiresAt: number };
export async function rotateKey(db: Firestore, keyOrId: string, graceMs: number, now: number): Promise<RotatedKey>;
export async function rotateKey(db: Firestore, keyOrId: string, graceMs: number, now: number, call: OperatorCall): Promise<Audited<RotatedKey>>;
export async function rotateKey(db: Firestore, keyOrId: string, graceMs: number, now: number, call?: OperatorCall): Promise<RotatedKey | Audited<RotatedKey>> {
  if (!Number.isFinite(graceMs) || graceMs < 0 || graceMs > DEFAULT_ROTATION_GRACE_MS) {
    throw new DomainError('invalid_argument', 'Grace must be between 0 and 7 days.');
  }
  return db.runTransaction(async (tx) => {
    const snapshot = await findKeyRef(db, keyOrId, tx);
    const old = snapshot.data()!;
    if (outside(call, old)) throw new DomainError('not_found', 'No such key.');
    const app = await getApp(db, old.appId, tx);
    const state = keyState(old, now);
    if (state !== 'active') throw new DomainError('conflict', `Key ${old.keyId} is ${state}; only an active key can be rotated.`);
    const plaintext = mintKey(old.kind, old.env);
    const replacement: KeyRecord = {
      ...newRecord(app, old.kind, old.env, plaintext, now, old.scopes),
      scopes: old.scopes, // never widened: the replacement inherits the exact scope map
    };
    const graceEndsAt = now + graceMs;
    writeNewKey(db, tx, replacement, plaintext);
    tx.update(snapshot.ref, { graceEndsAt, rotatedToKeyId: replacement.keyId });
    tx.update(appRef(db, app.appId), { [`currentKeys.${old.env}.${old.kind}`]: replacement.keyId });
    journal(db, tx, app.appId, { action: 'rotated', keyId: old.keyId, kind: old.kind, env: old.env, at: now, newKeyId: replacement.keyId, graceEndsAt, ...operatorOf(call) });
    const rotated = { newKey: { id: replacement.keyId, key: plaintext }, oldKeyId: old.keyId, oldKeyExpiresAt: graceEndsAt };
    if (!call) return rotated;
    const details = { appId: app.appId, keyId: old.keyId, kind: old.kind, newKeyId: replacement.keyId, graceMs, graceEndsAt };
    return { ...rotated, auditEventId: auditKeyChange(db, tx, call, old.env, 'rotated', `Operator rotated ${old.kind} key ${old.keyId}; the old key works until the grace ends.`, details, now) };
  });
}

/** Immediate and irreversible; the next request with the key gets `401 key_revoked`. */
type RevokedKey = { keyId: string; revokedAt: number };
export async function revokeKey(db: Firestore, keyOrId: string, now: number): Promise<RevokedKey>;
export async function revokeKey(db: Firestore, keyOrId: string, now: number, call: OperatorCall): Promise<Audited<RevokedKey>>;
export async function revokeKey(db: Firestore, keyOrId: string, now: number, call?: OperatorCall): Promise<RevokedKey | Audited<RevokedKey>> {
  return db.runTransaction(async (tx) => {
    const snapshot = await findKeyRef(db, keyOrId, tx);
    const record = snapshot.data()!;
    if (outside(call, record)) throw new DomainError('not_found', 'No such key.');
    if (record.status === 'revoked') throw new DomainError('conflict', `Key ${record.keyId} is already revoked.`);
    const app = await getApp(db, record.appId, tx);
    tx.update(snapshot.ref, { status: 'revoked', revokedAt: now });
    if (app.currentKeys[record.env][record.kind] === record.keyId) {
      tx.update(appRef(db, app.appId), { [`currentKeys.${record.env}.${record.kind}`]: null });
    }
    journal(db, tx, app.appId, { action: 'revoked', keyId: record.keyId, kind: record.kind, env: record.env, at: now, ...operatorOf(call) });
    if (!call) return { keyId: record.keyId, revokedAt: now };
    const details = { appId: app.appId, keyId: record.keyId, kind: record.kind };
    return { keyId: record.keyId, revokedAt: now, auditEventId: auditKeyChange(db, tx, call, record.env, 'revoked', `Operator revoked ${record.kind} key ${record.keyId}.`, details, now) };
  });
}

export interface KeyListing {
  id: string;
  kind: KeyKind;
  env: Env;
  key: string;
  state: KeyState;
  createdAt: number;
  graceEndsAt: number | null;
  revokedAt: number | null;
  scopes: string[];
}

export async function listKeys(db: Firestore, appId: string, now: number): Promise<{ keys: KeyListing[]; activity: KeyActivity[] }> {
  await getApp(db, appId);
  const [pub, secret, activity] = await Promise.all([
    keyIndex(db, 'publishable').where('appId', '==', appId).get(),
    keyIndex(db, 'secret').where('appId', '==', appId).get(),
    keyActivityCollection(db, appId).orderBy('at', 'asc').orderBy('recordedAt', 'asc').get(),
  ]);
  const keys = [...pub.docs, ...secret.docs]
    .map((doc) => doc.data())
    .sort((a, b) => a.createdAt - b.createdAt || a.keyId.localeCompare(b.keyId))
    .map((r) => ({
      id: r.keyId,
      kind: r.kind,
      env: r.env,
      key: r.display,
      state: keyState(r, now),
      createdAt: r.createdAt,
      graceEndsAt: r.graceEndsAt,
      revokedAt: r.revokedAt,
      scopes: r.scopes,
    }));
  return {
    keys,
    activity: activity.docs.map((d) => {
      const { recordedAt: _recordedAt, ...entry } = d.data();
      return entry;
    }),
  };
}

/** Copies a changed allowlist onto every publishable key of the app (the key gate reads only the key). */
export async function propagateAllowedOrigins(db: Firestore, tx: Transaction, appId: string, origins: string[]): Promise<void> {
  const keys = await tx.get(keyIndex(db, 'publishable').where('appId', '==', appId));
  tx.update(appRef(db, appId), { allowedOrigins: origins });
  for (const doc of keys.docs) tx.update(doc.ref, { allowedOrigins: origins });
}
