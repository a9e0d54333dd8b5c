import type { Transaction } from 'firebase-admin/firestore';
import { appendAudit, newServerEventId } from '../audit/append';
import { DAY, HOUR } from '../clock';
import { DomainError } from '../errors/domain';
import { randomToken } from '../ids/random';
import type { SecretWriter } from '../secrets/writer';
import type { EnvScope } from '../store/scope';
import { retryingTransaction } from '../store/transactionRetry';
import { checkDestination, type Lookup } from './destination';
import { readForDirectory, writeDirectory } from './directory';
import {
  MAX_ENDPOINTS_PER_PARTITION,
  TEST_EVENT_TYPE,
  endpointConverter,
  WEBHOOK_ENDPOINTS,
  WEBHOOK_EVENT_TYPES,
  type WebhookEndpointRecord,
  type WebhookEventType,
} from './model';
import { retireSigningSecret } from './secretRetirement';
import { mintSigningSecret, signingSecretRef } from './signingSecret';
import { WEBHOOK_ENDPOINT_ID } from '../ids';

/**
 * Endpoint registry: create, list, update (URL, event types), disable, enable, rotate the signing
 * secret, delete. Each change is one transaction with its audit entry. A signing secret is
 * written to the secret store before the transaction that references it (and removed again if
 * that transaction fails), so no record ever names a secret that does not exist; its value is
 * returned once, by the call that minted it. A delete removes the record first, then its secrets.
 *
 * A refusal decided inside a transaction is RETURNED from it and thrown after it: the
 * transaction then commits (releasing its locks, awaited) instead of rolling back, which the
 * store's client does not wait for. A CLI process exits right after a refusal: a rollback still
 * unsent left the project document locked, and the next creation in the other environment
 * waited for the lock until the store gave up (`10 ABORTED: Transaction lock timeout`).
 */

/**
 * Endpoint changes of one partition race on its limit guard and project document by design
 * (concurrent creations must not both count 9): a transaction that lost runs again.
 */
const endpointTransaction = <T>(scope: EnvScope, fn: (tx: Transaction) => Promise<T>): Promise<T> => retryingTransaction(() => scope.runTransaction(fn));

export const DEFAULT_SECRET_GRACE_MS = 24 * HOUR;
const MAX_SECRET_GRACE_MS = 7 * DAY;

export interface EndpointDeps {
  secrets: SecretWriter;
  now: number;
  /** Who asked (kept on the audit entry), e.g. `cli`. */
  surface: string;
  /** The signed-in operator (dashboard), kept on the audit entry. */
  operator?: string;
}

export interface CreateEndpointInput {
  url: string;
  eventTypes: string[];
  allowLoopbackHttp: boolean;
  lookup?: Lookup;
}

/** What listings show: no secret value and no reference, only which generation signs and until when the previous one does. */
export interface EndpointView {
  endpointId: string;
  projectId: string;
  env: WebhookEndpointRecord['env'];
  url: string;
  eventTypes: WebhookEventType[];
  allEventTypes: boolean;
  enabled: boolean;
  disabled: WebhookEndpointRecord['disabled'];
  /** Since when every delivery attempt has failed (null: the last one succeeded). */
  failingSince: number | null;
  createdAt: number;
  updatedAt: number;
  secretGeneration: number;
  previousSecret: { generation: number; expiresAt: number } | null;
}

export const endpointRef = (scope: EnvScope, endpointId: string) => scope.doc(WEBHOOK_ENDPOINTS, endpointId).withConverter(endpointConverter);
export const endpointsCollection = (scope: EnvScope) => scope.collection(WEBHOOK_ENDPOINTS).withConverter(endpointConverter);

function toEndpointView(record: WebhookEndpointRecord, now: number): EndpointView {
  const previous = record.previousSecret && record.previousSecret.expiresAt > now ? record.previousSecret : null;
  return {
    endpointId: record.endpointId,
    projectId: record.projectId,
    env: record.env,
    url: record.url,
    eventTypes: record.eventTypes,
    allEventTypes: record.eventTypes.length === 0,
    enabled: record.disabled === null,
    disabled: record.disabled,
    failingSince: record.failingSince ?? null,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    secretGeneration: record.secret.generation,
    previousSecret: previous ? { generation: previous.generation, expiresAt: previous.expiresAt } : null,
  };
}

function parseEventTypes(types: string[]): WebhookEventType[] {
  const unique = [...new Set(types)];
  for (const type of unique) {
    if (type === TEST_EVENT_TYPE) throw new DomainError('invalid_argument', `${TEST_EVENT_TYPE} is sent to an endpoint whenever asked for, whatever its event types; do not subscribe to it.`);
    if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(type)) {
      throw new DomainError('invalid_argument', `Unknown event type '${type}'; one of ${WEBHOOK_EVENT_TYPES.join(', ')}.`);
    }
  }
  return unique as WebhookEventType[];
}

/** Writes the secret (in the project's namespace), runs `fn`, and removes the secret again when `fn` fails. */
async function withNewSecret<T>(secrets: SecretWriter, projectId: string, ref: string, value: string, fn: () => Promise<T>): Promise<T> {
  await secrets.create(projectId, ref, value);
  try {
    return await fn();
  } catch (err) {
    await secrets.remove(projectId, ref).catch(() => undefined); // the original failure is what the operator needs
    throw err;
  }
}

type EndpointAction = 'created' | 'updated' | 'disabled' | 'enabled' | 'secret_rotated' | 'deleted';

/** A refusal decided inside a transaction, thrown once the transaction has committed (see the top of this file). */
class Refusal {
  constructor(readonly error: DomainError) {}
}

async function refusedAfterCommit<T>(outcome: Promise<T | Refusal>): Promise<T> {
  const result = await outcome;
  if (result instanceof Refusal) throw result.error;
  return result;
}

/**
 * The limit: at most MAX_ENDPOINTS_PER_PARTITION enabled endpoints, counted from the listing the
 * directory is rebuilt from (directory.ts). That read includes the guard document
 * `webhookMeta/endpointCount`, which every endpoint change writes, so two concurrent creations or
 * enables conflict on it and the later one retries and sees the other.
 */
const limitReached = (scope: EnvScope, count: number) =>
  new Refusal(new DomainError('conflict', `Project ${scope.projectId} already has ${count} enabled ${scope.env} webhook endpoints (at most ${MAX_ENDPOINTS_PER_PARTITION}); delete or disable one first.`));

/** Who disables an endpoint other than an operator: the delivery, on a 410 or after 3 days of failures. */
const DELIVERY_SURFACE = 'delivery';

function auditEndpointChange(tx: Transaction, scope: EnvScope, deps: Pick<EndpointDeps, 'now' | 'surface' | 'operator'>, action: EndpointAction, record: WebhookEndpointRecord, from: string | null, reason: string, details: Record<string, unknown> = {}): string {
  const eventId = newServerEventId('webhook');
  appendAudit(tx, scope, {
    eventId,
    rail: 'manual',
    eventType: `webhook_endpoint.${action}`,
    customerId: null,
    subscriptionId: null,
    decision: 'applied',
    reason,
    fromState: from,
    toState: record.disabled ? 'disabled' : 'enabled',
    signatureVerified: false,
    reconciledWithProvider: false,
    rawEventReceivedAt: deps.now,
    processedAt: deps.now,
    details: { endpointId: record.endpointId, url: record.url, eventTypes: record.eventTypes, secretGeneration: record.secret.generation, surface: deps.surface, ...(deps.operator ? { operator: deps.operator } : {}), ...details },
  });
  return eventId;
}

/**
 * Registers an endpoint. The destination is checked first (it is checked again at every
 * delivery). Refused when the partition already has MAX_ENDPOINTS_PER_PARTITION enabled ones.
 */
export async function createEndpoint(scope: EnvScope, input: CreateEndpointInput, deps: EndpointDeps): Promise<{ endpoint: EndpointView; secret: string; auditEventId: string }> {
  const eventTypes = parseEventTypes(input.eventTypes);
  const { url } = await checkDestination(input.url, { allowLoopbackHttp: input.allowLoopbackHttp, lookup: input.lookup });
  const endpointId = `${WEBHOOK_ENDPOINT_ID.prefix}${randomToken(24)}`;
  const secret = mintSigningSecret();
  const ref = signingSecretRef(endpointId, 1);
  return withNewSecret(deps.secrets, scope.projectId, ref, secret, () =>
    refusedAfterCommit(
      endpointTransaction(scope, async (tx) => {
        const project = await tx.get(scope.projectRef());
        if (!project.exists) return new Refusal(new DomainError('not_found', `No project ${scope.projectId}.`));
        if (project.get('archived')) return new Refusal(new DomainError('archived', `Project ${scope.projectId} is archived.`));
        const directory = await readForDirectory(tx, scope);
        if (directory.enabled.length >= MAX_ENDPOINTS_PER_PARTITION) return limitReached(scope, directory.enabled.length);
        const record: WebhookEndpointRecord = {
          endpointId,
          projectId: scope.projectId,
          env: scope.env,
          url: url.href,
          eventTypes,
          disabled: null,
          createdAt: deps.now,
          updatedAt: deps.now,
          secret: { ref, generation: 1, createdAt: deps.now },
          previousSecret: null,
        };
        tx.create(endpointRef(scope, endpointId), record);
        writeDirectory(tx, scope, directory, { changed: [record] }, deps.now);
        const auditEventId = auditEndpointChange(tx, scope, deps, 'created', record, null, `Operator registered webhook endpoint ${endpointId}.`);
        return { endpoint: toEndpointView(record, deps.now), secret, auditEventId };
      }),
    ),
  );
}

export interface UpdateEndpointInput {
  url?: string;
  eventTypes?: string[];
  allowLoopbackHttp: boolean;
  lookup?: Lookup;
}

/** Changes an endpoint's URL (checked as at creation) and/or its event types (empty: every type). Its secrets and state stay. */
export async function updateEndpoint(scope: EnvScope, endpointId: string, input: UpdateEndpointInput, deps: EndpointDeps): Promise<{ endpoint: EndpointView; auditEventId: string }> {
  if (input.url === undefined && input.eventTypes === undefined) throw new DomainError('invalid_argument', 'Give a new URL, new event types, or both.');
  const eventTypes = input.eventTypes === undefined ? undefined : parseEventTypes(input.eventTypes);
  const url = input.url === undefined ? undefined : (await checkDestination(input.url, { allowLoopbackHttp: input.allowLoopbackHttp, lookup: input.lookup })).url.href;
  return refusedAfterCommit(
    endpointTransaction(scope, async (tx) => {
      const current = await readEndpointOrRefusal(tx, scope, endpointId);
      if (current instanceof Refusal) return current;
      const directory = await readForDirectory(tx, scope);
      const record: WebhookEndpointRecord = { ...current, url: url ?? current.url, eventTypes: eventTypes ?? current.eventTypes, updatedAt: deps.now };
      tx.update(endpointRef(scope, endpointId), { url: record.url, eventTypes: record.eventTypes, updatedAt: deps.now });
      writeDirectory(tx, scope, directory, { changed: [record] }, deps.now);
      const from = current.disabled ? 'disabled' : 'enabled';
      const auditEventId = auditEndpointChange(tx, scope, deps, 'updated', record, from, `Operator updated webhook endpoint ${endpointId}.`, { previousUrl: current.url, previousEventTypes: current.eventTypes });
      return { endpoint: toEndpointView(record, deps.now), auditEventId };
    }),
  );
}

/**
 * Deletes an endpoint: its record (audited: the entry keeps its URL and event types), then
 * every generation of its signing secret from the secret store. Deliveries still queued for it
 * find no endpoint and are dropped; its delivery records stay until their TTL (history).
 * `secretsNotRemoved` names the references the secret store could not delete (retry by hand).
 */
export async function deleteEndpoint(scope: EnvScope, endpointId: string, deps: EndpointDeps): Promise<{ endpointId: string; deleted: true; auditEventId: string; secretsRemoved: number; secretsNotRemoved: string[] }> {
  const { record, auditEventId } = await refusedAfterCommit(
    endpointTransaction(scope, async (tx) => {
      const current = await readEndpointOrRefusal(tx, scope, endpointId);
      if (current instanceof Refusal) return current;
      const directory = await readForDirectory(tx, scope);
      tx.delete(endpointRef(scope, endpointId));
      writeDirectory(tx, scope, directory, { removed: [endpointId] }, deps.now);
      const from = current.disabled ? 'disabled' : 'enabled';
      const id = auditEndpointChange(tx, scope, deps, 'deleted', current, from, `Operator deleted webhook endpoint ${endpointId}.`);
      return { record: current, auditEventId: id };
    }),
  );
  const refs = allSecretRefs(record);
  const results = await Promise.allSettled(refs.map((ref) => deps.secrets.remove(scope.projectId, ref)));
  const secretsNotRemoved = refs.filter((_, i) => results[i].status === 'rejected' && !isNotFound((results[i] as PromiseRejectedResult).reason));
  return { endpointId, deleted: true, auditEventId, secretsRemoved: refs.length - secretsNotRemoved.length, secretsNotRemoved };
}

/**
 * Every generation's reference, not only the ones the record still names: a generation past
 * its grace is no longer referenced but may still be stored. References end in `-{generation}`
 * (signingSecretRef); one that does not is removed alone.
 */
function allSecretRefs(record: WebhookEndpointRecord): string[] {
  const { ref, generation } = record.secret;
  const suffix = `-${generation}`;
  const named = [ref, ...(record.previousSecret ? [record.previousSecret.ref] : [])];
  if (!ref.endsWith(suffix)) return named;
  const prefix = ref.slice(0, -suffix.length);
  return [...new Set([...named, ...Array.from({ length: generation }, (_, i) => `${prefix}-${i + 1}`)])];
}

/** Secret Manager's NOT_FOUND (gRPC 5): a secret already gone is removed. */
const isNotFound = (err: unknown): boolean => typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 5;

export async function listEndpoints(scope: EnvScope, now: number): Promise<EndpointView[]> {
  const snapshot = await scope.query(endpointsCollection(scope));
  return snapshot.docs
    .map((doc) => doc.data())
    .sort((a, b) => a.createdAt - b.createdAt || a.endpointId.localeCompare(b.endpointId))
    .map((record) => toEndpointView(record, now));
}

async function readEndpointOrRefusal(tx: Transaction, scope: EnvScope, endpointId: string): Promise<WebhookEndpointRecord | Refusal> {
  const snapshot = await tx.get(endpointRef(scope, endpointId));
  if (!snapshot.exists) return new Refusal(new DomainError('not_found', `No webhook endpoint ${endpointId}.`));
  return snapshot.data()!;
}

/** Stops deliveries to the endpoint (kept, with its secrets, until enabled again). */
export async function disableEndpoint(scope: EnvScope, endpointId: string, note: string | null, deps: EndpointDeps): Promise<{ endpoint: EndpointView; auditEventId: string }> {
  return refusedAfterCommit(
    endpointTransaction(scope, async (tx) => {
      const current = await readEndpointOrRefusal(tx, scope, endpointId);
      if (current instanceof Refusal) return current;
      if (current.disabled) return new Refusal(new DomainError('conflict', `Webhook endpoint ${endpointId} is already disabled.`));
      const directory = await readForDirectory(tx, scope);
      const record: WebhookEndpointRecord = { ...current, disabled: { reason: 'operator', note, at: deps.now }, updatedAt: deps.now };
      tx.update(endpointRef(scope, endpointId), { disabled: record.disabled, updatedAt: deps.now });
      writeDirectory(tx, scope, directory, { changed: [record] }, deps.now);
      const auditEventId = auditEndpointChange(tx, scope, deps, 'disabled', record, 'enabled', `Operator disabled webhook endpoint ${endpointId}.`, { note });
      return { endpoint: toEndpointView(record, deps.now), auditEventId };
    }),
  );
}

/**
 * Disables an endpoint on the delivery's word, inside the delivery's transaction (which has read
 * `current` in it, and writes the partition's directory with the returned record):
 * `gone` after a 410, `failing` after 3 days of failed attempts. Audited like an operator's
 * disable; returns the audit entry's id and the record as disabled.
 */
export function disableEndpointForDelivery(tx: Transaction, scope: EnvScope, current: WebhookEndpointRecord, reason: 'gone' | 'failing', note: string, now: number): { auditEventId: string; record: WebhookEndpointRecord } {
  const record: WebhookEndpointRecord = { ...current, disabled: { reason, note, at: now }, updatedAt: now };
  tx.update(endpointRef(scope, current.endpointId), { disabled: record.disabled, updatedAt: now });
  const why = reason === 'gone' ? 'its receiver answered 410 Gone' : 'every delivery attempt failed for 3 days';
  const auditEventId = auditEndpointChange(tx, scope, { now, surface: DELIVERY_SURFACE }, 'disabled', record, 'enabled', `Webhook endpoint ${current.endpointId} disabled: ${why}.`, { disabledReason: reason, note, failingSince: current.failingSince ?? null });
  return { auditEventId, record };
}

/** Resumes deliveries to a disabled endpoint; refused when the partition already has MAX_ENDPOINTS_PER_PARTITION enabled ones. */
export async function enableEndpoint(scope: EnvScope, endpointId: string, deps: EndpointDeps): Promise<{ endpoint: EndpointView; auditEventId: string }> {
  return refusedAfterCommit(
    endpointTransaction(scope, async (tx) => {
      const current = await readEndpointOrRefusal(tx, scope, endpointId);
      if (current instanceof Refusal) return current;
      if (!current.disabled) return new Refusal(new DomainError('conflict', `Webhook endpoint ${endpointId} is already enabled.`));
      const directory = await readForDirectory(tx, scope);
      if (directory.enabled.length >= MAX_ENDPOINTS_PER_PARTITION) return limitReached(scope, directory.enabled.length);
      // A fresh start: failures before the endpoint was disabled do not count towards disabling it again.
      const record: WebhookEndpointRecord = { ...current, disabled: null, failingSince: null, updatedAt: deps.now };
      tx.update(endpointRef(scope, endpointId), { disabled: null, failingSince: null, updatedAt: deps.now });
      writeDirectory(tx, scope, directory, { changed: [record] }, deps.now);
      const auditEventId = auditEndpointChange(tx, scope, deps, 'enabled', record, 'disabled', `Operator enabled webhook endpoint ${endpointId}.`, { previousReason: current.disabled.reason });
      return { endpoint: toEndpointView(record, deps.now), auditEventId };
    }),
  );
}

/**
 * Mints the next signing secret; the current one becomes the previous one and keeps signing for
 * `graceMs` (0: it stops at once). The webhook worker deletes a previous secret when its grace
 * ends (secretRetirement.ts); one that this rotation displaces before then is deleted here.
 */
export async function rotateEndpointSecret(scope: EnvScope, endpointId: string, graceMs: number, deps: EndpointDeps): Promise<{ endpoint: EndpointView; secret: string; previousSecretExpiresAt: number; auditEventId: string }> {
  if (!Number.isFinite(graceMs) || graceMs < 0 || graceMs > MAX_SECRET_GRACE_MS) throw new DomainError('invalid_argument', 'Grace must be between 0 and 7 days.');
  const before = await scope.get(endpointRef(scope, endpointId));
  if (!before.exists) throw new DomainError('not_found', `No webhook endpoint ${endpointId}.`);
  // The generation is fixed before the secret is written: a concurrent rotation then fails on
  // the check below instead of overwriting this one's reference.
  const generation = before.data()!.secret.generation + 1;
  const secret = mintSigningSecret();
  const ref = signingSecretRef(endpointId, generation);
  const rotated = await withNewSecret(deps.secrets, scope.projectId, ref, secret, () =>
    refusedAfterCommit(endpointTransaction(scope, async (tx) => {
      const current = await readEndpointOrRefusal(tx, scope, endpointId);
      if (current instanceof Refusal) return current;
      if (current.secret.generation + 1 !== generation) return new Refusal(new DomainError('conflict', `The secret of webhook endpoint ${endpointId} was rotated meanwhile; try again.`));
      const directory = await readForDirectory(tx, scope);
      const expiresAt = deps.now + graceMs;
      const record: WebhookEndpointRecord = {
        ...current,
        secret: { ref, generation, createdAt: deps.now },
        // Kept even with no grace (it ends now), so that the worker deletes it like any other.
        previousSecret: { ref: current.secret.ref, generation: current.secret.generation, expiresAt },
        previousSecretRetiresAt: expiresAt,
        updatedAt: deps.now,
      };
      tx.update(endpointRef(scope, endpointId), { secret: record.secret, previousSecret: record.previousSecret, previousSecretRetiresAt: expiresAt, updatedAt: deps.now });
      writeDirectory(tx, scope, directory, { changed: [record] }, deps.now);
      const from = current.disabled ? 'disabled' : 'enabled';
      const auditEventId = auditEndpointChange(tx, scope, deps, 'secret_rotated', record, from, `Operator rotated the signing secret of webhook endpoint ${endpointId}.`, { graceMs, previousSecretExpiresAt: expiresAt });
      // A previous secret not yet deleted (its grace may still run) is displaced by this one.
      const displaced = current.previousSecret && current.previousSecretRetiresAt !== null ? current.previousSecret : null;
      return { endpoint: toEndpointView(record, deps.now), secret, previousSecretExpiresAt: expiresAt, auditEventId, displaced };
    })),
  );
  const { displaced, ...result } = rotated;
  // No record names the displaced secret any more: delete it now (the worker never sees it again).
  if (displaced) await retireSigningSecret(deps.secrets, scope.projectId, endpointId, displaced.ref);
  return result;
}
