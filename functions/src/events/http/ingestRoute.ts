import type { JSONSchemaType } from 'ajv';
import { route } from '../../http/route';
import { ANONYMOUS_ID_PATTERN, USER_ID_PATTERN } from '../../identity/identifiers';
import { ingestBatch, passMemoryFor } from '../ingest';
import { sdkFloorViolation, sdkVersionUnsupported } from '../sdkFloor';
import { envelopeSdk, MAX_EVENTS, PROPERTIES_LIMIT_BYTES } from '../validation';
import type { TaskQueue } from '../../tasks/queue';
import type { EventsBody, RawEvent } from '../batch';

/** Spec Limits: the events request body is about 1 MB at most; larger bodies are a 400 naming the limit. */
export const EVENTS_BODY_LIMIT_BYTES = 1024 * 1024;

const HINT_REQUIRED = 'each event needs at least one identity hint (developerUserId, anonymousId or serviceCustomerId)';
/** One branch of "at least one identity hint": the hint is present and not null. */
const hint = (name: 'developerUserId' | 'anonymousId' | 'serviceCustomerId') => ({
  required: [name],
  properties: { [name]: { type: 'string', 'x-missing-when-empty': true, 'x-missing': HINT_REQUIRED } },
  'x-missing': HINT_REQUIRED,
});
const anything = {} as JSONSchemaType<unknown>;

/**
 * All-or-nothing: events are checked in order (each one whole before the next) and the first
 * failure rejects the batch with `400 invalid_param_value` naming `events[i].field`.
 */
export const eventSchema: JSONSchemaType<RawEvent> = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 128 },
    eventId: { type: 'string', nullable: true, minLength: 1, maxLength: 64 },
    timestamp: { type: 'integer', nullable: true },
    properties: {
      type: 'object',
      nullable: true,
      required: [],
      'x-maxJsonBytes': PROPERTIES_LIMIT_BYTES,
      'x-invalid': { 'x-maxJsonBytes': `must be at most ${PROPERTIES_LIMIT_BYTES} bytes serialised` },
    },
    // The identifier rules of identify, so resolution links only identifiers identify accepts.
    developerUserId: { type: 'string', nullable: true, pattern: USER_ID_PATTERN.source },
    anonymousId: { type: 'string', nullable: true, pattern: ANONYMOUS_ID_PATTERN.source },
    serviceCustomerId: { type: 'string', nullable: true, pattern: '^cdcust_[A-Za-z0-9_-]{1,64}$' },
    // Soft-dropped when malformed (validation.ts), never rejected.
    level: anything,
    tags: anything,
    categoryTags: anything,
  },
  anyOf: [hint('developerUserId'), hint('anonymousId'), hint('serviceCustomerId')],
} as JSONSchemaType<RawEvent>;

export const eventsBodySchema: JSONSchemaType<EventsBody> = {
  type: 'object',
  required: ['events'],
  properties: {
    events: { type: 'array', minItems: 1, maxItems: MAX_EVENTS, items: eventSchema },
    appId: { type: 'string', nullable: true },
    environment: { type: 'string', nullable: true, enum: ['sandbox', 'production', null] },
    sdk: anything,
    envelopeVersion: anything,
  },
} as JSONSchemaType<EventsBody>;

/** The `202` body: exactly the fields of the spec; `throttled` only on a partially throttled batch. */
export interface IngestResponse {
  object: 'list';
  received: number;
  env: string;
  throttled?: { dropped: number; sampleRate: number; retryAfterMs: number };
}

/**
 * `POST /v1/events`. The version floor runs before validation, so that a too-old wire format
 * gets its `426` rather than a `400` for fields it does not know.
 * Rate limiting is per event (partial grants), so the route declares no all-or-nothing bucket.
 */
export const ingestEventsRoute = route<EventsBody, Record<string, string>, { tasks: TaskQueue }>({
  method: 'POST',
  path: '/v1/events',
  key: 'any',
  maxBodyBytes: EVENTS_BODY_LIMIT_BYTES,
  cacheControl: 'no-store',
  body: eventsBodySchema,
  beforeValidation(request) {
    if (!request.deps.settings.enforceSdkFloor) return;
    const violation = sdkFloorViolation(request.header('service-sdk-version'), envelopeSdk(request.body));
    if (violation) throw sdkVersionUnsupported(violation);
  },
  handler: async (ctx) => {
    const { deps, auth } = ctx;
    const result = await ingestBatch(
      { scope: ctx.scope, clock: deps.clock, limiter: deps.limiter, tasks: deps.tasks, passMemory: passMemoryFor(deps), telemetryRetentionDays: deps.settings.telemetryRetentionDays },
      { requestId: ctx.requestId, appId: auth.appId, platform: auth.platform, wireEnv: auth.wireEnv, sdkHeader: ctx.header('service-sdk-version')?.slice(0, 200) ?? null },
      ctx.body,
    );
    const body: IngestResponse = { object: 'list', received: result.received, env: result.env };
    if (result.throttled) body.throttled = result.throttled;
    return { status: 202, body };
  },
});
