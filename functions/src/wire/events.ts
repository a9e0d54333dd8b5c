import type { FromSchema } from 'json-schema-to-ts';
import { ANONYMOUS_ID, CUSTOMER_ID, DEVELOPER_USER_ID } from '../ids';
import { wireEnvSchema } from './common';

/** `POST /v1/events` (spec › Limits: 1–100 events, `properties` at most 8 KB serialised). */
const MAX_EVENTS = 100;
const PROPERTIES_LIMIT_BYTES = 8 * 1024;

const HINT_REQUIRED = 'each event needs at least one identity hint (developerUserId, anonymousId or serviceCustomerId)';
const hintPresent = { type: 'string', 'x-missing-when-empty': true, 'x-missing': HINT_REQUIRED } as const;
/** "At least one identity hint": one branch per hint, each present and not null. */
const hintBranches = [
  { required: ['developerUserId'], properties: { developerUserId: hintPresent }, 'x-missing': HINT_REQUIRED },
  { required: ['anonymousId'], properties: { anonymousId: hintPresent }, 'x-missing': HINT_REQUIRED },
  { required: ['serviceCustomerId'], properties: { serviceCustomerId: hintPresent }, 'x-missing': HINT_REQUIRED },
] as const;

/**
 * One event. All-or-nothing: events are checked in order (each one whole before the next) and the
 * first failure rejects the batch with `400 invalid_param_value` naming `events[i].field`.
 * `level`, `tags` and `categoryTags` are anything here: soft-dropped later when malformed.
 */
const eventSchema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 128 },
    eventId: { type: ['string', 'null'], minLength: 1, maxLength: 64 },
    timestamp: { type: ['integer', 'null'] },
    properties: {
      type: ['object', 'null'],
      'x-maxJsonBytes': PROPERTIES_LIMIT_BYTES,
      'x-invalid': { 'x-maxJsonBytes': `must be at most ${PROPERTIES_LIMIT_BYTES} bytes serialised` },
    },
    // The identifier rules of identify, so resolution links only identifiers identify accepts.
    developerUserId: { type: ['string', 'null'], pattern: DEVELOPER_USER_ID.schema.pattern },
    anonymousId: { type: ['string', 'null'], pattern: ANONYMOUS_ID.schema.pattern },
    serviceCustomerId: { type: ['string', 'null'], pattern: CUSTOMER_ID.schema.pattern },
    level: {},
    tags: {},
    categoryTags: {},
  },
  anyOf: hintBranches,
} as const;
export type RawEvent = FromSchema<typeof eventSchema>;

export const eventsBodySchema = {
  type: 'object',
  required: ['events'],
  properties: {
    events: { type: 'array', minItems: 1, maxItems: MAX_EVENTS, items: eventSchema },
    appId: { type: ['string', 'null'] },
    environment: { enum: ['sandbox', 'production', null] },
    // Observed, never enforced (events/validation.ts).
    sdk: {},
    envelopeVersion: {},
  },
} as const;
export type EventsBody = FromSchema<typeof eventsBodySchema>;

/** The `202` body: exactly the spec's fields; `throttled` only on a partially throttled batch. */
export const ingestResponseSchema = {
  type: 'object',
  required: ['object', 'received', 'env'],
  additionalProperties: false,
  properties: {
    object: { const: 'list' },
    received: { type: 'integer', minimum: 0 },
    env: wireEnvSchema,
    throttled: {
      type: 'object',
      required: ['dropped', 'sampleRate', 'retryAfterMs'],
      additionalProperties: false,
      properties: { dropped: { type: 'integer', minimum: 0 }, sampleRate: { type: 'number', minimum: 0, maximum: 1 }, retryAfterMs: { type: 'integer', minimum: 0 } },
    },
  },
} as const;
export type IngestResponse = FromSchema<typeof ingestResponseSchema>;
