import { route } from '../../http/route';
import { eventsBodySchema, ingestResponseSchema, type EventsBody, type IngestResponse } from '../../wire/events';
import { ingestBatch, passMemoryFor } from '../ingest';
import { landingTasksFor } from '../landingTasks';
import { sdkFloorViolation, sdkVersionUnsupported } from '../sdkFloor';
import { envelopeSdk } from '../validation';
import type { TaskQueue } from '../../tasks/queue';

/** Spec Limits: the events request body is about 1 MB at most; larger bodies are a 400 naming the limit. */
export const EVENTS_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * `POST /v1/events`. The version floor runs before validation, so that a too-old wire format
 * gets its `426` rather than a `400` for fields it does not know.
 * Rate limiting is per event (partial grants), so the route declares no all-or-nothing bucket.
 */
export const ingestEventsRoute = route<EventsBody, Record<string, string>, Record<string, string>, IngestResponse, { tasks: TaskQueue }>({
  method: 'POST',
  path: '/v1/events',
  key: 'any',
  maxBodyBytes: EVENTS_BODY_LIMIT_BYTES,
  cacheControl: 'no-store',
  body: eventsBodySchema,
  response: { 202: ingestResponseSchema },
  beforeValidation(request) {
    if (!request.deps.settings.enforceSdkFloor) return;
    const violation = sdkFloorViolation(request.header('service-sdk-version'), envelopeSdk(request.body));
    if (violation) throw sdkVersionUnsupported(violation);
  },
  handler: async (ctx) => {
    const { deps, auth } = ctx;
    const result = await ingestBatch(
      {
        scope: ctx.scope,
        clock: deps.clock,
        limiter: deps.limiter,
        landingTasks: landingTasksFor(deps.tasks),
        passMemory: passMemoryFor(deps),
        telemetryRetentionDays: deps.settings.telemetryRetentionDays,
      },
      { requestId: ctx.requestId, appId: auth.appId, platform: auth.platform, wireEnv: auth.wireEnv, sdkHeader: ctx.header('service-sdk-version')?.slice(0, 200) ?? null },
      ctx.body,
    );
    const body: IngestResponse = { object: 'list', received: result.received, env: result.env };
    if (result.throttled) body.throttled = result.throttled;
    return { status: 202, body };
  },
});
