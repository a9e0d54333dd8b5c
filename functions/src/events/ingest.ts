import { DAY, type Clock } from '../clock';
import { DomainError } from '../errors/domain';
import { rateLimited } from '../ratelimit/refusal';
import type { Platform } from '../wire/vocabulary';
import { BUCKETS } from '../ratelimit/buckets';
import type { LimitDecision, RateLimiter } from '../ratelimit/limiter';
import type { WireEnv } from '../store/env';
import type { EnvScope } from '../store/scope';
import type { EventsBody } from '../wire/events';
import { eventLogs } from './logs';
import { packBatchEvents } from './batchCodec';
import { BATCH_CODEC, batchDocId, eventDocId, type LandingFields } from './model';
import { batchWrite, errorPassRef, errorPassWrite, readIngestContext, timestampFromMillis } from './repository';
import type { LandingTasks } from './landingTasks';
import { expiresAtMs, retentionDays } from './retention';
import { ErrorPassMemory, minuteOf, planThrottle } from './throttle';
import { normaliseBatch, type NormalisedEvent } from './validation';
import { recordThrottled } from '../store/rollups/eventRollup';

/** How long an error-pass marker is kept: its minute is long over by then. */
const ERROR_PASS_MARKER_TTL_MS = DAY;

export interface IngestResult {
  received: number;
  env: WireEnv;
  throttled: { dropped: number; sampleRate: number; retryAfterMs: number } | null;
}

/** What the ingest path is given: the key's partition and the instance's edges. */
export interface IngestPorts {
  scope: EnvScope;
  clock: Clock;
  limiter: RateLimiter;
  /** Per process (one per Deps' queue): enqueues the landings' identity-resolution tasks. */
  landingTasks: LandingTasks;
  /** Per process (one per Deps): error-pass markers already seen this minute. */
  passMemory: ErrorPassMemory;
  /** The default when the project sets none (settings). */
  telemetryRetentionDays: number;
}

/** Who sends the batch: the key's app and platform, and what the request carried beside the body. */
export interface IngestCaller {
  requestId: string;
  appId: string;
  platform: Platform;
  wireEnv: WireEnv;
  sdkHeader: string | null;
}

const passMemories = new WeakMap<object, ErrorPassMemory>();
/** The process's error-pass memory (keyed by the Deps the route is served with). */
export const passMemoryFor = (owner: object): ErrorPassMemory => {
  let memory = passMemories.get(owner);
  if (!memory) {
    memory = new ErrorPassMemory();
    passMemories.set(owner, memory);
  }
  return memory;
};

/**
 * `POST /v1/events` after the version floor and validation (the route's): bucket → one read (key re-check, project
 * retention, error-pass markers when throttled) → one commit (the landing events as one batch
 * document, plus new error-pass markers) → identity-resolution task (shared with landings of the
 * partition committed at the same time), which stores the events.
 * Nothing is written before the whole batch has been validated, and nothing at all on 4xx.
 */
export async function ingestBatch(ports: IngestPorts, caller: IngestCaller, body: EventsBody): Promise<IngestResult> {
  const { scope } = ports;
  const auth = { projectId: scope.projectId, env: scope.env, appId: caller.appId, wireEnv: caller.wireEnv, platform: caller.platform };
  const receivedAt = ports.clock.now();

  const batch = normaliseBatch(body, receivedAt);
  if (batch.appId !== null && batch.appId !== auth.appId) {
    throw new DomainError('invalid_param_value', 'Invalid value for `appId`: it must be the app of the API key (or be omitted).');
  }

  const decision = await ports.limiter.take({ projectId: auth.projectId, env: auth.env, bucket: 'events' }, BUCKETS.events, batch.events.length);
  const granted = Math.min(batch.events.length, decision.granted);
  const memory = ports.passMemory;
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
    eventLogs.batchThrottled(caller.requestId, auth.projectId, auth.env, 0, plan.dropped.length, 0);
    throw rateLimited(decision, 'events');
  }

  const landingFields: LandingFields = {
    receivedAt,
    env: auth.wireEnv,
    appId: auth.appId,
    platform: auth.platform,
    sdk: batch.sdk,
    sdkHeader: caller.sdkHeader,
    envelopeVersion: batch.envelopeVersion,
    requestId: caller.requestId,
    expiresAt: timestampFromMillis(expiresAtMs(receivedAt, retentionDays(reads.project, ports.telemetryRetentionDays))),
  };
  // The normalised events are the payload's objects (no copy): only the error pass is marked on them.
  for (const event of passes) event.throttlePass = true;
  const parts = packBatchEvents(landing);
  // Each landing event's document id is hashed once, here; the batch document id hashes those.
  const batchDocIds = parts.map((part) => batchDocId(part.events.map((event) => eventDocId(event.eventId))));
  const landingBatch = scope.batch();
  parts.forEach((part, i) =>
    batchWrite(landingBatch, scope, batchDocIds[i], { ...landingFields, codec: BATCH_CODEC, eventCount: part.events.length, events: part.payload }),
  );
  for (const event of passes) {
    const fingerprint = event.fingerprint as string;
    errorPassWrite(landingBatch, scope, {
        fingerprint,
        minute,
        eventId: event.eventId,
        passedAt: receivedAt,
        expiresAt: timestampFromMillis(receivedAt + ERROR_PASS_MARKER_TTL_MS),
      });
  }
  // Partly throttled: the report's throttled and dropped counts ride in the same commit.
  recordThrottled(landingBatch, scope, receivedAt, batch.events.length - plan.paid.length, plan.dropped.length);
  // The request's one commit: its batch documents, error-pass markers and throttle counts together.
  const landedAt = await scope.commit(landingBatch);
  for (const event of passes) memory.remember(scopeKey, event.fingerprint as string, minute);

  // After the commit: a task must never run ahead of the batch it stores. Landings of this
  // partition committed in the same turn share tasks (landingTasks.ts). If enqueueing fails the
  // request fails, and the client's retry (same event ids) lands and enqueues again.
  await ports.landingTasks.enqueue(auth.projectId, auth.env, batchDocIds, landedAt);

  const dropped = plan.dropped.length;
  if (dropped > 0) eventLogs.batchThrottled(caller.requestId, auth.projectId, auth.env, landing.length, dropped, passes.length);
  return {
    received: landing.length,
    env: auth.wireEnv,
    throttled: dropped > 0 ? throttledSummary(dropped, decision) : null,
  };
}

function throttledSummary(dropped: number, decision: LimitDecision): IngestResult['throttled'] {
  return { dropped, sampleRate: decision.sampleRate, retryAfterMs: Math.max(1, decision.retryAfterMs) };
}
