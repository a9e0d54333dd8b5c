import { route } from '../http/route';
import { ingestBatch } from './ingest';

/** Spec Limits: the events request body is about 1 MB at most; larger bodies are a 400 naming the limit. */
export const EVENTS_BODY_LIMIT_BYTES = 1024 * 1024;

/** The `202` body: exactly the fields of the spec; `throttled` only on a partially throttled batch. */
export interface IngestResponse {
  object: 'list';
  received: number;
  env: string;
  throttled?: { dropped: number; sampleRate: number; retryAfterMs: number };
}

/**
 * `POST /v1/events`. Validation happens in the handler, after the version floor, so that a
 * too-old wire format gets its `426` rather than a `400` for fields it does not know.
 * Rate limiting is per event (partial grants), so the route declares no all-or-nothing bucket.
 */
export const ingestEventsRoute = route({
  method: 'POST',
  path: '/v1/events',
  key: 'any',
  maxBodyBytes: EVENTS_BODY_LIMIT_BYTES,
  cacheControl: 'no-store',
  handler: async (ctx) => {
    const result = await ingestBatch(ctx);
    const body: IngestResponse = { object: 'list', received: result.received, env: result.env };
    if (result.throttled) body.throttled = result.throttled;
    return { status: 202, body };
  },
});
