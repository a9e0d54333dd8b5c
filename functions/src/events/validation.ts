import { DAY } from '../clock';
import { ApiError } from '../http/errors';
import { compileSchema } from '../http/validation';
import { ANONYMOUS_ID_PATTERN, USER_ID_PATTERN } from '../identity/identifiers';
import { randomToken } from '../keys/format';
import { errorFingerprint } from './fingerprint';
import { EVENT_LEVELS, eventDocId, type EventLevel, type IdentityHints, type IngestedEventFields } from './model';

/**
 * Validation of `POST /v1/events` (request table and rules 1–3).
 *
 * All-or-nothing: events are checked in order and the first failure rejects the batch with
 * `400 invalid_param_value` naming `events[i].field`. Malformed `level`, `tags` and
 * `categoryTags` are soft-dropped (the event keeps everything else). Optional fields sent as
 * `null` count as absent. Unknown event fields are ignored, not stored. `sdk` and
 * `envelopeVersion` are observed, never enforced: recorded when well-formed, ignored otherwise.
 */
export const MAX_EVENTS = 100;
export const PROPERTIES_LIMIT_BYTES = 8 * 1024;
export const TIMESTAMP_SKEW_MS = DAY;
export const TAGS_MAX_KEYS = 32;
export const TAG_VALUE_MAX_CHARS = 64;
/** Not in the spec: keys the store cannot hold (empty, reserved `__x__`) or absurdly long make tags malformed. */
export const TAG_KEY_MAX_CHARS = 128;
export const CATEGORY_TAGS_MAX = 16;
export const CATEGORY_TAG_MAX_CHARS = 32;

const nullable = (schema: Record<string, unknown>) => ({ ...schema, type: [schema.type as string, 'null'] });

export const envelopeSchema = {
  type: 'object',
  required: ['events'],
  properties: {
    events: { type: 'array', minItems: 1, maxItems: MAX_EVENTS, items: { type: 'object' } },
    appId: nullable({ type: 'string' }),
    environment: nullable({ type: 'string', enum: ['sandbox', 'production', null] }),
  },
} as const;

export const eventSchema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 128 },
    eventId: nullable({ type: 'string', minLength: 1, maxLength: 64 }),
    timestamp: nullable({ type: 'integer' }),
    properties: nullable({ type: 'object' }),
    // The identifier rules of identify, so resolution links only identifiers identify accepts.
    developerUserId: nullable({ type: 'string', pattern: USER_ID_PATTERN.source }),
    anonymousId: nullable({ type: 'string', pattern: ANONYMOUS_ID_PATTERN.source }),
    serviceCustomerId: nullable({ type: 'string', pattern: '^cdcust_[A-Za-z0-9_-]{1,64}$' }),
  },
} as const;

const validateEnvelope = compileSchema<RawEnvelope>(envelopeSchema);
const validateEvent = compileSchema<RawEvent>(eventSchema);

interface RawEnvelope {
  events: Record<string, unknown>[];
  appId?: string | null;
  environment?: string | null;
  sdk?: unknown;
  envelopeVersion?: unknown;
}

interface RawEvent {
  name: string;
  eventId?: string | null;
  timestamp?: number | null;
  properties?: Record<string, unknown> | null;
  developerUserId?: string | null;
  anonymousId?: string | null;
  serviceCustomerId?: string | null;
  level?: unknown;
  tags?: unknown;
  categoryTags?: unknown;
}

/** One event after validation and soft-drops, ready to land: the request path's stored fields. */
export type NormalisedEvent = Pick<
  IngestedEventFields,
  'eventId' | 'eventIdSource' | 'name' | 'timestamp' | 'clientTimestamp' | 'properties' | 'level' | 'tags' | 'categoryTags' | 'softDropped' | 'fingerprint' | 'hints'
> & {
  /** Position in the request (for messages and ordering). */
  index: number;
  docId: string;
};

export interface NormalisedBatch {
  events: NormalisedEvent[];
  appId: string | null;
  sdk: { name: string; version: string } | null;
  envelopeVersion: number | null;
}

export function normaliseBatch(body: unknown, receivedAt: number): NormalisedBatch {
  const envelope = validateEnvelope(body);
  const events = envelope.events.map((raw, index) => normaliseEvent(raw, index, receivedAt));
  return {
    events: collapseDuplicates(events),
    appId: envelope.appId ?? null,
    sdk: observedSdk(envelope.sdk),
    envelopeVersion: Number.isSafeInteger(envelope.envelopeVersion) ? (envelope.envelopeVersion as number) : null,
  };
}

export function normaliseEvent(raw: unknown, index: number, receivedAt: number): NormalisedEvent {
  const at = `/events/${index}`;
  const event = validateEvent(raw, at);
  const field = (name: string) => `events[${index}].${name}`;

  const hints: IdentityHints = {
    developerUserId: event.developerUserId ?? null,
    anonymousId: event.anonymousId ?? null,
    serviceCustomerId: event.serviceCustomerId ?? null,
  };
  if (!hints.developerUserId && !hints.anonymousId && !hints.serviceCustomerId) {
    throw new ApiError(
      'invalid_param_value',
      `Missing required field \`${field('developerUserId')}\`: each event needs at least one identity hint (developerUserId, anonymousId or serviceCustomerId).`,
    );
  }

  let properties: string | null = null;
  if (event.properties) {
    properties = JSON.stringify(event.properties);
    const bytes = Buffer.byteLength(properties, 'utf8');
    if (bytes > PROPERTIES_LIMIT_BYTES) {
      throw new ApiError('invalid_param_value', `Invalid value for \`${field('properties')}\`: must be at most ${PROPERTIES_LIMIT_BYTES} bytes serialised (got ${bytes}).`);
    }
  }

  const softDropped: string[] = [];
  const level = softField(event.level, isLevel, 'level', softDropped);
  const tags = softField(event.tags, isValidTags, 'tags', softDropped);
  const categoryTags = softField(event.categoryTags, isValidCategoryTags, 'categoryTags', softDropped);

  const clientTimestamp = event.timestamp ?? null;
  const skewed = clientTimestamp !== null && Math.abs(clientTimestamp - receivedAt) > TIMESTAMP_SKEW_MS;
  const eventId = event.eventId ?? `srv_evt_${randomToken(24)}`;

  return {
    index,
    eventId,
    eventIdSource: event.eventId ? 'client' : 'server',
    docId: eventDocId(eventId),
    name: event.name,
    timestamp: clientTimestamp === null || skewed ? receivedAt : clientTimestamp,
    clientTimestamp: skewed ? clientTimestamp : null,
    properties,
    level,
    tags: tags ? { ...tags } : null,
    categoryTags: categoryTags ? [...categoryTags] : null,
    softDropped,
    fingerprint: level ? errorFingerprint(event.name, event.properties ?? null) : null,
    hints,
  };
}

/** Two events of one batch with the same event id are one record: the later copy wins, as a retry would. */
function collapseDuplicates(events: NormalisedEvent[]): NormalisedEvent[] {
  const last = new Map<string, number>();
  events.forEach((event, position) => last.set(event.docId, position));
  return events.filter((event, position) => last.get(event.docId) === position);
}

function softField<T>(value: unknown, valid: (value: unknown) => value is T, name: string, dropped: string[]): T | null {
  if (value === undefined || value === null) return null;
  if (valid(value)) return value;
  dropped.push(name);
  return null;
}

const chars = (text: string): number => [...text].length;

const isLevel = (value: unknown): value is EventLevel => typeof value === 'string' && (EVENT_LEVELS as readonly string[]).includes(value);

function isValidTags(value: unknown): value is Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const entries = Object.entries(value);
  if (entries.length > TAGS_MAX_KEYS) return false;
  return entries.every(
    ([key, tag]) => key.length > 0 && chars(key) <= TAG_KEY_MAX_CHARS && !/^__.*__$/.test(key) && typeof tag === 'string' && chars(tag) <= TAG_VALUE_MAX_CHARS,
  );
}

function isValidCategoryTags(value: unknown): value is string[] {
  return Array.isArray(value) && value.length <= CATEGORY_TAGS_MAX && value.every((tag) => typeof tag === 'string' && chars(tag) <= CATEGORY_TAG_MAX_CHARS);
}

/** The envelope's `sdk`, read leniently from a body that has not been validated yet. */
export function envelopeSdk(body: unknown): { name: string; version: string } | null {
  return typeof body === 'object' && body !== null ? observedSdk((body as Record<string, unknown>).sdk) : null;
}

function observedSdk(value: unknown): { name: string; version: string } | null {
  if (typeof value !== 'object' || value === null) return null;
  const { name, version } = value as Record<string, unknown>;
  if (typeof name !== 'string' || typeof version !== 'string') return null;
  return { name: name.slice(0, 128), version: version.slice(0, 64) };
}
