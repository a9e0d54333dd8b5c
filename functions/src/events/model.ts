import { createHash } from 'node:crypto';
import type { Timestamp } from 'firebase-admin/firestore';
import type { Platform } from '../keys/record';
import type { WireEnv } from '../store/env';

/**
 * Stored telemetry, inside the key's partition (see EnvScope):
 *
 * - `events/{eventDocId(eventId)}`      StoredEvent. The id is derived from the event id, so a
 *   retried batch overwrites its own records instead of adding new ones.
 * - `errorPasses/{fingerprint}_{minute}` ErrorPassMarker: the error event of this fingerprint
 *   that passed the throttle in this minute (one per fingerprint per minute).
 *
 * Both carry `expiresAt`, the field of their Firestore TTL policies.
 */
export const EVENTS = 'events';
export const ERROR_PASSES = 'errorPasses';

export type EventLevel = 'error' | 'warning' | 'info';
export const EVENT_LEVELS: readonly EventLevel[] = ['error', 'warning', 'info'];

export interface IdentityHints {
  developerUserId: string | null;
  anonymousId: string | null;
  serviceCustomerId: string | null;
}

/** Fields written by the request path; a retry replaces exactly these. */
export interface IngestedEventFields {
  eventId: string;
  /** `client` when the SDK sent the id; `server` when the batch omitted it. */
  eventIdSource: 'client' | 'server';
  name: string;
  /** Unix ms: the client's time, or the receive time when the client's was skewed beyond ±24 h. */
  timestamp: number;
  /** The client's timestamp as sent when it was clamped; otherwise null. */
  clientTimestamp: number | null;
  receivedAt: number;
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
  env: WireEnv;
  appId: string;
  platform: Platform;
  sdk: { name: string; version: string } | null;
  sdkHeader: string | null;
  envelopeVersion: number | null;
  requestId: string;
  expiresAt: Timestamp;
}

/** Written by the identity-resolution task only, never by the request path. */
export interface ResolvedEventFields {
  serviceCustomerId: string;
  resolvedAt: number;
}

export type StoredEvent = IngestedEventFields & Partial<ResolvedEventFields>;

/** Fields a retried batch replaces wholesale (set with mergeFields, leaving resolution intact). */
export const INGESTED_FIELDS: readonly (keyof IngestedEventFields)[] = [
  'eventId',
  'eventIdSource',
  'name',
  'timestamp',
  'clientTimestamp',
  'receivedAt',
  'properties',
  'level',
  'tags',
  'categoryTags',
  'softDropped',
  'fingerprint',
  'hints',
  'throttlePass',
  'env',
  'appId',
  'platform',
  'sdk',
  'sdkHeader',
  'envelopeVersion',
  'requestId',
  'expiresAt',
];

export interface ErrorPassMarker {
  fingerprint: string;
  minute: number;
  eventId: string;
  passedAt: number;
  expiresAt: Timestamp;
}

const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Document id of an event: a hash of its event id, so any client id (slashes, dots, 64 chars)
 * is a valid, evenly distributed Firestore id, and the same event id always lands on the same
 * document within a project and environment.
 */
export const eventDocId = (eventId: string): string => `e_${sha256Hex(eventId).slice(0, 40)}`;

export const errorPassDocId = (fingerprint: string, minute: number): string => `${fingerprint}_${minute}`;
