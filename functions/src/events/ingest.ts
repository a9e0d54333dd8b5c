import type { Deps } from '../app/deps';
import { DAY } from '../clock';
import { ApiError } from '../http/errors';
import { rateLimitedError } from '../http/rateLimit';
import type { RequestContext } from '../http/route';
import { BUCKETS } from '../ratelimit/buckets';
import type { LimitDecision } from '../ratelimit/limiter';
import { eventLogs } from './logs';
import type { IngestedEventFields } from './model';
import { errorPassRef, eventRef, putErrorPass, putEvent, readIngestContext, timestampFromMillis } from './repository';
import { identityResolutionPayload, identityResolutionTaskId } from './resolutionTask';
import { expiresAtMs, retentionDays } from './retention';
import { sdkFloorViolation, sdkVersionUnsupported } from './sdkFloor';
import { ErrorPassMemory, minuteOf, planThrottle } from './throttle';
import { envelopeSdk, normaliseBatch, type NormalisedEvent } from './validation';

/** How long an error-pass marker is kept: its minute is long over by then. */
const ERROR_PASS_MARKER_TTL_MS = DAY;

export interface IngestResult {
  received: number;
  env: string;
  throttled: { dropped: number; sampleRate: number; retryAfterMs: number } | null;
}

const passMemories = new WeakMap<Deps, ErrorPassMemory>();
const passMemoryFor = (deps: Deps): ErrorPassMemory => {
  let memory = passMemories.get(deps);
  if (!memory) {
    memory = new ErrorPassMemory();
    passMemories.set(deps, memory);
  }
  return memory;
};

/**
 * `POST /v1/events`: version floor → validation → bucket → one read (key re-check, project
 * retention, error-pass markers when throttled) → one commit → identity-resolution task.
 * Nothing is written before the whole batch has been validated, and nothing at all on 4xx.
 */
export async function ingestBatch(ctx: RequestContext): Promise<IngestResult> {
  const { deps, auth, scope } = ctx;
  const receivedAt = deps.clock.now();

  if (deps.settings.enforceSdkFloor) {
    const violation = sdkFloorViolation(ctx.header('service-sdk-version'), envelopeSdk(ctx.body));
    if (violation) throw sdkVersionUnsupported(violation);
  }

  const batch = normaliseBatch(ctx.body, receivedAt);
  if (batch.appId !== null && batch.appId !== auth.appId) {
    throw new ApiError('invalid_param_value', 'Invalid value for `appId`: it must be the app of the API key (or be omitted).');
  }

  const decision = await deps.limiter.take({ projectId: auth.projectId, env: auth.env, bucket: 'events' }, BUCKETS.events, batch.events.length, ctx.roundTrips);
  const granted = Math.min(batch.events.length, decision.granted);
  const memory = passMemoryFor(deps);
  const scopeKey = `${auth.projectId}/${auth.env}`;
  const minute = minuteOf(receivedAt);
  const plan = planThrottle(batch.events, granted, memory, scopeKey, minute);

  const markerRefs = plan.candidates.map((event) => errorPassRef(scope, event.fingerprint as string, minute));
  const reads = await readIngestContext(scope, markerRefs);
  const passes: NormalisedEvent[] = [];
  plan.candidates.forEach((event, i) => {
    if (reads.markersTaken[i]) {
      memory.remember(scopeKey, event.fingerprint as string, minute);
      plan.dropped.push(event);
    } else {
      passes.push(event);
    }
  });

  const landing = [...plan.paid, ...passes];
  if (landing.length === 0) {
    eventLogs.batchThrottled(ctx.requestId, auth.projectId, auth.env, 0, plan.dropped.length, 0);
    throw rateLimitedError(decision, 'events');
  }

  const expiresAt = timestampFromMillis(expiresAtMs(receivedAt, retentionDays(reads.project, deps.settings.telemetryRetentionDays)));
  const sdkHeader = ctx.header('service-sdk-version')?.slice(0, 200) ?? null;
  const write = scope.batch();
  const passed = new Set(passes);
  for (const event of landing) {
    const fields: IngestedEventFields = {
      eventId: event.eventId,
      eventIdSource: event.eventIdSource,
      name: event.name,
      timestamp: event.timestamp,
      clientTimestamp: event.clientTimestamp,
      receivedAt,
      properties: event.properties,
      level: event.level,
      tags: event.tags,
      categoryTags: event.categoryTags,
      softDropped: event.softDropped,
      fingerprint: event.fingerprint,
      hints: event.hints,
      throttlePass: passed.has(event),
      env: auth.wireEnv,
      appId: auth.appId,
      platform: auth.platform,
      sdk: batch.sdk,
      sdkHeader,
      envelopeVersion: batch.envelopeVersion,
      requestId: ctx.requestId,
      expiresAt,
    };
    putEvent(write, eventRef(scope, event.docId), fields);
  }
  for (const event of passes) {
    const fingerprint = event.fingerprint as string;
    putErrorPass(write, errorPassRef(scope, fingerprint, minute), {
      fingerprint,
      minute,
      eventId: event.eventId,
      passedAt: receivedAt,
      expiresAt: timestampFromMillis(receivedAt + ERROR_PASS_MARKER_TTL_MS),
    });
  }
  await scope.commit(write);
  for (const event of passes) memory.remember(scopeKey, event.fingerprint as string, minute);

  // After the commit: a task must never run ahead of the events it resolves. If enqueueing
  // fails the request fails, and the client's retry (same event ids) lands and enqueues again.
  await deps.tasks.enqueue('identityResolution', identityResolutionPayload(auth.projectId, auth.env, landing), {
    id: identityResolutionTaskId(auth.projectId, auth.env, landing),
  });

  const dropped = plan.dropped.length;
  if (dropped > 0) eventLogs.batchThrottled(ctx.requestId, auth.projectId, auth.env, landing.length, dropped, passes.length);
  return {
    received: landing.length,
    env: auth.wireEnv,
    throttled: dropped > 0 ? throttledSummary(dropped, decision) : null,
  };
}

function throttledSummary(dropped: number, decision: LimitDecision): IngestResult['throttled'] {
  return { dropped, sampleRate: decision.sampleRate, retryAfterMs: Math.max(1, decision.retryAfterMs) };
}
