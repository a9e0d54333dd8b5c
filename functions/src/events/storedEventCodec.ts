import type { DocumentData } from 'firebase-admin/firestore';
import { encodedRecord } from '../store/converters';
import type { IdentityHints, IngestedEventFields, ResolvedEventFields, StoredEvent, StoredEventDocument, StoredHints } from './model';

/**
 * How an event document is stored (`events/{eventDocId}`): the fields some query filters or
 * orders on stay fields, everything only ever displayed travels as one JSON string, `packed`.
 *
 * - Fields: `timestamp` (the customer history's order), `hints` (erasure finds events by
 *   `hints.developerUserId` / `hints.anonymousId`; only the hints the event has), `expiresAt`
 *   (the TTL field), and the resolution's `serviceCustomerId` (customer history, erasure) and
 *   `resolvedAt`.
 * - `packed`: every other field of the event and its landing (eventId, name, level, properties,
 *   tags, sdk, requestId, …), never filtered on and exempt from indexing.
 *
 * Why: the Firestore client validates, converts and encodes every value of a document one by one,
 * and the store indexes each; the bench's landings wrote ~29 values and 49 index entries per
 * event (7 and 3 now), and the storing task now takes a third to two fifths less CPU
 * (docs/benchmarks.md). One JSON string is one value, serialised by V8 at native speed.
 *
 * Documents stored before (every field a field, no `packed`) stay readable: `unpackStoredEvent`
 * reads both shapes, so no migration is needed; their TTL retires them.
 */

/** Written with `mergeFields` by an unattributed retry: exactly the request's part of the document. */
export const REQUEST_FIELD_PATHS: readonly (keyof StoredEventDocument)[] = ['packed', 'timestamp', 'hints', 'expiresAt'];

/** The packed part of an event (everything of IngestedEventFields but the document's own fields). */
type PackedEventFields = Omit<IngestedEventFields, 'timestamp' | 'hints' | 'expiresAt'>;

/**
 * The stored document of an event (with its resolution when attributed). The packed object is
 * built field by field (not by copying and deleting) so that nothing else reaches the store.
 */
export function packStoredEvent(fields: IngestedEventFields, resolved: ResolvedEventFields | null): StoredEventDocument {
  const packed: PackedEventFields = {
    eventId: fields.eventId,
    eventIdSource: fields.eventIdSource,
    name: fields.name,
    clientTimestamp: fields.clientTimestamp,
    receivedAt: fields.receivedAt,
    properties: fields.properties,
    level: fields.level,
    tags: fields.tags,
    categoryTags: fields.categoryTags,
    softDropped: fields.softDropped,
    fingerprint: fields.fingerprint,
    throttlePass: fields.throttlePass,
    env: fields.env,
    appId: fields.appId,
    platform: fields.platform,
    sdk: fields.sdk,
    sdkHeader: fields.sdkHeader,
    envelopeVersion: fields.envelopeVersion,
    requestId: fields.requestId,
  };
  const document: StoredEventDocument = { packed: JSON.stringify(packed), timestamp: fields.timestamp, hints: presentHints(fields.hints), expiresAt: fields.expiresAt };
  if (resolved) {
    document.serviceCustomerId = resolved.serviceCustomerId;
    document.resolvedAt = resolved.resolvedAt;
  }
  return document;
}

/**
 * The hints an event has, without the absent ones: a null is a value the client encodes and the
 * store indexes, and a query for an identifier never matches it (absent reads back as null).
 */
function presentHints({ developerUserId, anonymousId, serviceCustomerId }: IdentityHints): StoredHints {
  const present: StoredHints = {};
  if (developerUserId !== null) present.developerUserId = developerUserId;
  if (anonymousId !== null) present.anonymousId = anonymousId;
  if (serviceCustomerId !== null) present.serviceCustomerId = serviceCustomerId;
  return present;
}

/**
 * The event a stored document holds, whichever shape it was written in: packed (above), or the
 * earlier one with every field a field. Throws when `packed` is not a JSON object (only a bug
 * writes that; the message never quotes the content).
 */
export function unpackStoredEvent(data: DocumentData): StoredEvent {
  if (typeof data.packed !== 'string') return data as StoredEvent; // stored before packing
  let packed: unknown;
  try {
    packed = JSON.parse(data.packed);
  } catch {
    throw new Error('stored event: packed fields are not JSON');
  }
  if (packed === null || typeof packed !== 'object' || Array.isArray(packed)) throw new Error('stored event: packed fields are not an object');
  // The packed fields win over fields of the earlier shape that an unattributed retry (a merge of
  // the request's fields) left beside them: they are that retry's newer copy.
  const { packed: _packed, hints, ...fields } = data;
  const stored = (hints ?? {}) as StoredHints;
  const allHints: IdentityHints = { developerUserId: stored.developerUserId ?? null, anonymousId: stored.anonymousId ?? null, serviceCustomerId: stored.serviceCustomerId ?? null };
  return { ...fields, ...(packed as PackedEventFields), hints: allHints } as StoredEvent;
}

/**
 * Reads event documents in either shape and writes a whole StoredEvent packed. (The identity-
 * resolution task packs its events itself, repository.ts, without the copy a converter's input costs.)
 */
export const storedEventConverter = encodedRecord<StoredEvent>(({ serviceCustomerId, resolvedAt, ...fields }) =>
  packStoredEvent(fields, serviceCustomerId !== undefined && resolvedAt !== undefined ? { serviceCustomerId, resolvedAt } : null), unpackStoredEvent);
