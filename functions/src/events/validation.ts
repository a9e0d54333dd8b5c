import { DAY } from '../clock';
import { serialisedJson } from '../wire/serialisedJson';
import { randomToken } from '../ids/random';
import type { EventsBody, RawEvent } from '../wire/events';
import { errorFingerprint } from './fingerprint';
import { EVENT_LEVELS, type BatchedEvent, type EventLevel, type IdentityHints } from './model';

/**
 * Normalisation of a `POST /v1/events` body that its schema (ingestRoute.ts, request table and
 * rules 1–3) has admitted. Malformed `level`, `tags` and `categoryTags` are soft-dropped here
 * (the event keeps everything else): the schema leaves them alone. Optional fields sent as
 * `null` count as absent. Unknown event fields are ignored, not stored. `sdk` and
 * `envelopeVersion` are observed, never enforced: recorded when well-formed, ignored otherwise.
 */
export const TIMESTAMP_SKEW_MS = DAY;
export const TAGS_MAX_KEYS = 32;
export const TAG_VALUE_MAX_CHARS = 64;
/** Not in the spec: keys the store cannot hold (empty, reserved `__x__`) or absurdly long make tags malformed. */
export const TAG_KEY_MAX_CHARS = 128;
export const CATEGORY_TAGS_MAX = 16;
export const CATEGORY_TAG_MAX_CHARS = 32;

/**
 * One event after validation and soft-drops, ready to land: already the object the batch's
 * payload stores (`throttlePass` false until the landing lets it through the error pass), so the
 * request path serialises it without copying it first.
 */
export type NormalisedEvent = BatchedEvent;

export interface NormalisedBatch {
  events: NormalisedEvent[];
  appId: string | null;
  sdk: { name: string; version: string } | null;
  envelopeVersion: number | null;
}

export function normaliseBatch(envelope: EventsBody, receivedAt: number): NormalisedBatch {
  const events = envelope.events.map((raw) => normaliseEvent(raw, receivedAt));
  return {
    events: collapseDuplicates(events),
    appId: envelope.appId ?? null,
    sdk: observedSdk(envelope.sdk),
    envelopeVersion: Number.isSafeInteger(envelope.envelopeVersion) ? (envelope.envelopeVersion as number) : null,
  };
}

export function normaliseEvent(event: RawEvent, receivedAt: number): NormalisedEvent {
  const hints: IdentityHints = {
    developerUserId: event.developerUserId ?? null,
    anonymousId: event.anonymousId ?? null,
    serviceCustomerId: event.serviceCustomerId ?? null,
  };
  // Its size was bounded by the schema (`x-maxJsonBytes`), which kept the text.
  const properties = event.properties ? serialisedJson(event.properties) : null;

  const softDropped: string[] = [];
  const level = softField(event.level, isLevel, 'level', softDropped);
  const tags = softField(event.tags, isValidTags, 'tags', softDropped);
  const categoryTags = softField(event.categoryTags, isValidCategoryTags, 'categoryTags', softDropped);

  const clientTimestamp = event.timestamp ?? null;
  const skewed = clientTimestamp !== null && Math.abs(clientTimestamp - receivedAt) > TIMESTAMP_SKEW_MS;
  const eventId = event.eventId ?? `srv_evt_${randomToken(24)}`;

  return {
    eventId,
    eventIdSource: event.eventId ? 'client' : 'server',
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
    throttlePass: false,
  };
}

/**
 * Two events of one batch with the same event id are one record (their document id derives from
 * the event id): the later copy wins, as a retry would.
 */
function collapseDuplicates(events: NormalisedEvent[]): NormalisedEvent[] {
  const last = new Map<string, number>();
  events.forEach((event, position) => last.set(event.eventId, position));
  if (last.size === events.length) return events;
  return events.filter((event, position) => last.get(event.eventId) === position);
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
