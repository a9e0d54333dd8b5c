import { hash } from 'node:crypto';
import type { Timestamp } from 'firebase-admin/firestore';
import type { Platform } from '../wire/vocabulary';
import type { WireEnv } from '../store/env';
import { storedRecord } from '../store/converters';

/**
 * Stored telemetry, inside the key's partition (see EnvScope):
 *
 * - `eventBatches/{batchDocId(…)}`      LandedBatch: a landed batch as one document, written by
 *   the request path in its one commit, read and deleted by the identity-resolution task.
 * - `events/{eventDocId(eventId)}`      StoredEvent, written by that task as a StoredEventDocument
 *   (storedEventCodec.ts: queried fields as fields, the rest packed). The id is derived from
 *   the event id, so a retried batch overwrites its own records instead of adding new ones.
 * - `errorPasses/{fingerprint}_{minute}` ErrorPassMarker: the error event of this fingerprint
 *   that passed the throttle in this minute (one per fingerprint per minute).
 *
 * Both carry `expiresAt`, the field of their Firestore TTL policies.
 */
export const EVENT_BATCHES = 'eventBatches';
export const EVENTS = 'events';
export const ERROR_PASSES = 'errorPasses';

export type EventLevel = 'error' | 'warning' | 'info';
export const EVENT_LEVELS: readonly EventLevel[] = ['error', 'warning', 'info'];

export interface IdentityHints {
  developerUserId: string | null;
  anonymousId: string | null;
  serviceCustomerId: string | null;
}

/** Hints as a packed event document stores them: only those the event has. */
export type StoredHints = Partial<IdentityHints>;

/** Per-event fields, as validated (and, for a throttled batch, passed) by the request path. */
export interface BatchedEvent {
  eventId: string;
  /** `client` when the SDK sent the id; `server` when the batch omitted it. */
  eventIdSource: 'client' | 'server';
  name: string;
  /** Unix ms: the client's time, or the receive time when the client's was skewed beyond ±24 h. */
  timestamp: number;
  /** The client's timestamp as sent when it was clamped; otherwise null. */
  clientTimestamp: number | null;
  /** `properties` as the JSON text the client sent (at most 8 KB), or null. */
  properties: string | null;
  level: EventLevel | null;
  tags: Record<string, string> | null;
  categoryTags: string[] | null;
  /** Names of malformed optional fields that were soft-dropped. */
  softDropped: string[];
  /** Error events only (a valid `level`); see fingerprint.ts. */
  fingerprint: string | null;
  hints: IdentityHints;
  /** Whether this event landed through the per-fingerprint error pass of a throttled batch. */
  throttlePass: boolean;
}

/** Fields of the request an event arrived in, shared by every event of one landing. */
export interface LandingFields {
  receivedAt: number;
  env: WireEnv;
  appId: string;
  platform: Platform;
  sdk: { name: string; version: string } | null;
  sdkHeader: string | null;
  envelopeVersion: number | null;
  requestId: string;
  /** When the telemetry expires (the project's retention): the TTL field. */
  expiresAt: Timestamp;
}

/** Fields that come from the request (the event and its landing); a retry replaces exactly these. */
export type IngestedEventFields = BatchedEvent & LandingFields;

/** Written by the identity-resolution task only, never by the request path. */
export interface ResolvedEventFields {
  serviceCustomerId: string;
  resolvedAt: number;
}

export type StoredEvent = IngestedEventFields & Partial<ResolvedEventFields>;

/**
 * An event document as stored (storedEventCodec.ts): the fields queries filter or order on, and
 * the rest of the event as one JSON string. Documents stored before packing hold a StoredEvent
 * as is; `storedEventConverter` reads both.
 */
export interface StoredEventDocument {
  /** JSON object: every IngestedEventFields field but the three below. */
  packed: string;
  timestamp: number;
  /** The event's hints without the null ones. */
  hints: StoredHints;
  expiresAt: Timestamp;
  serviceCustomerId?: string;
  resolvedAt?: number;
}

/**
 * A landed batch, waiting for the identity-resolution task to store its events one by one.
 * The events travel as one gzip-compressed JSON array (see batchCodec.ts): one small write on
 * the request path whatever the batch holds, and no index entry per event field.
 */
export interface LandedBatch extends LandingFields {
  codec: typeof BATCH_CODEC;
  eventCount: number;
  events: Buffer;
}

export const BATCH_CODEC = 'gzip-json-1';

export interface ErrorPassMarker {
  fingerprint: string;
  minute: number;
  eventId: string;
  passedAt: number;
  expiresAt: Timestamp;
}

/** One-shot `hash`: a third of `createHash(…).update(…).digest()`'s cost, paid twice per event. */
const sha256Hex = (text: string): string => hash('sha256', text, 'hex');

/**
 * Document id of an event: a hash of its event id, so any client id (slashes, dots, 64 chars)
 * is a valid, evenly distributed Firestore id, and the same event id always lands on the same
 * document within a project and environment.
 */
export const eventDocId = (eventId: string): string => `e_${sha256Hex(eventId).slice(0, 40)}`;

/**
 * Document id of a landed batch: a hash of its events' document ids, so a retried batch replaces
 * its own pending document (until the task has stored its events).
 */
export function batchDocId(eventDocIds: readonly string[]): string {
  return `b_${sha256Hex([...eventDocIds].sort().join('\n')).slice(0, 40)}`;
}

export const BATCH_DOC_ID_PATTERN = /^b_[0-9a-f]{40}$/;

export const errorPassDocId = (fingerprint: string, minute: number): string => `${fingerprint}_${minute}`;

export const landedBatchConverter = storedRecord<LandedBatch>();

