import type { DocumentSnapshot, Transaction } from 'firebase-admin/firestore';
import { storedRecord } from '../store/converters';
import type { EnvScope } from '../store/scope';
import { ENDPOINT_COUNT_DOC, TEST_EVENT_TYPE, WEBHOOK_ENDPOINTS, WEBHOOK_META, endpointConverter, type WebhookEndpointRecord, type WebhookEventType } from './model';
import type { OutboundEventType } from './eventModel';

/**
 * The partition's webhook directory: which ENABLED endpoints exist and what they subscribe to, on
 * the limit's guard document `webhookMeta/endpointCount` (every creation and enable already reads
 * and writes it). A change's transaction reads it beside its own first read, so an event nobody
 * is subscribed to is written already fanned out and gets no fan-out task.
 *
 * Kept exact by construction: every transaction that creates, updates, disables, enables,
 * deletes an endpoint or rotates its secret (the delivery's automatic disable and its
 * `failingSince` transitions included) reads the guard document and the partition's enabled
 * endpoints and writes the directory rebuilt from that listing with its own change applied. Those transactions and every change's transaction meet on this one
 * document, so a change that commits after an endpoint's creation sees it (serializable), and
 * one that read the directory before blocks (or retries) the creation until it commits.
 *
 * No directory (a partition whose guard document predates it, or that has none) is UNKNOWN, not
 * empty: its events are fanned out as before, and the first fan-out writes the directory
 * (`ensureDirectory`) in a transaction of the same kind.
 */

/**
 * An enabled endpoint as the fan-out needs it to choose targets and make their first attempts
 * (its types, empty: every type; where to send; whether it is failing; which secrets sign).
 */
export interface DirectoryEntry {
  endpointId: string;
  eventTypes: WebhookEventType[];
  url: string;
  failingSince: number | null;
  secret: { ref: string; generation: number };
  previousSecret: { ref: string; generation: number; expiresAt: number } | null;
}

export interface WebhookDirectory {
  /** Every enabled endpoint of the partition, by id. */
  endpoints: DirectoryEntry[];
  builtAt: number;
}

/** The guard document: `updatedAt` (the limit's guard) and, once built, `directory`. */
interface GuardDoc {
  updatedAt: number;
  directory?: WebhookDirectory;
}

const guardConverter = storedRecord<GuardDoc>();

export const webhookDirectoryRef = (scope: EnvScope) => scope.doc(WEBHOOK_META, ENDPOINT_COUNT_DOC).withConverter(guardConverter);

/** What a change's transaction read: the directory, or null when the partition has none yet (unknown). */
export function directoryOf(snapshot: DocumentSnapshot<GuardDoc>): WebhookDirectory | null {
  return snapshot.data()?.directory ?? null;
}

/**
 * Whether an event of `type` for every subscribed endpoint may go to someone. An unknown
 * directory may: only a known one without a subscriber lets the event skip its fan-out.
 * `webhook.test` names its endpoint and is never written through here.
 */
export function mayHaveTargets(directory: WebhookDirectory | null, type: OutboundEventType): boolean {
  if (directory === null || type === TEST_EVENT_TYPE) return true;
  return subscribedEntries(directory, type).length > 0;
}

/** What an endpoint transaction read for the directory, before its writes. */
export interface DirectoryRead {
  /** The partition's enabled endpoints as of the transaction. */
  enabled: WebhookEndpointRecord[];
}

/**
 * Reads the guard document (so that every directory writer, and every change that read it,
 * conflict on one document) and the partition's enabled endpoints (at most
 * MAX_ENDPOINTS_PER_PARTITION), in the caller's transaction, before its writes.
 */
export async function readForDirectory(tx: Transaction, scope: EnvScope): Promise<DirectoryRead> {
  await tx.get(webhookDirectoryRef(scope));
  return { enabled: await enabledEndpoints(tx, scope) };
}

/**
 * Writes the guard document with the directory rebuilt from `read` and the transaction's own
 * change: `changed` as it is after the transaction (dropped when disabled), `removed` deleted.
 */
export function writeDirectory(tx: Transaction, scope: EnvScope, read: DirectoryRead, change: { changed?: WebhookEndpointRecord[]; removed?: string[] }, now: number): void {
  const byId = new Map(read.enabled.map((e) => [e.endpointId, e]));
  for (const record of change.changed ?? []) byId.set(record.endpointId, record);
  for (const id of change.removed ?? []) byId.delete(id);
  const endpoints = [...byId.values()]
    .filter((e) => e.disabled === null)
    .map(directoryEntry)
    .sort((a, b) => a.endpointId.localeCompare(b.endpointId));
  const doc: GuardDoc = { updatedAt: now, directory: { endpoints, builtAt: now } };
  tx.set(webhookDirectoryRef(scope), doc);
}

export function directoryEntry(record: WebhookEndpointRecord): DirectoryEntry {
  const { endpointId, url, secret, previousSecret } = record;
  return {
    endpointId,
    eventTypes: [...record.eventTypes],
    url,
    failingSince: record.failingSince ?? null,
    secret: { ref: secret.ref, generation: secret.generation },
    previousSecret: previousSecret ? { ref: previousSecret.ref, generation: previousSecret.generation, expiresAt: previousSecret.expiresAt } : null,
  };
}

/** The directory's entries an event of `type` goes to (enabled by construction, subscribed to the type). */
export function subscribedEntries(directory: WebhookDirectory, type: OutboundEventType): DirectoryEntry[] {
  return directory.endpoints.filter((e) => e.eventTypes.length === 0 || (e.eventTypes as string[]).includes(type));
}

/**
 * Builds the directory of a partition that has none (the first fan-out there), in a transaction
 * that reads and writes the guard document as endpoint changes do: a creation racing it either
 * commits first (and is listed) or conflicts with it and rebuilds the directory itself after.
 * Returns what it wrote, or null when another writer built it meanwhile (nothing written).
 */
export async function ensureDirectory(scope: EnvScope, now: number): Promise<{ endpoints: number } | null> {
  return scope.runTransaction(async (tx) => {
    const guard = await tx.get(webhookDirectoryRef(scope));
    if (directoryOf(guard) !== null) return null;
    const read = { enabled: await enabledEndpoints(tx, scope) };
    writeDirectory(tx, scope, read, {}, now);
    return { endpoints: read.enabled.length };
  });
}

async function enabledEndpoints(tx: Transaction, scope: EnvScope): Promise<WebhookEndpointRecord[]> {
  const enabled = await tx.get(scope.collection(WEBHOOK_ENDPOINTS).withConverter(endpointConverter).where('disabled', '==', null));
  return enabled.docs.map((d) => d.data());
}
