import { Timestamp, type DocumentSnapshot, type Firestore } from 'firebase-admin/firestore';
import { DAY, toUnixSeconds, type Clock } from '../clock';
import type { Settings } from '../config/settings';
import type { SecretStore } from '../secrets/store';
import { EnvScope } from '../store/scope';
import type { TaskQueue } from '../tasks/queue';
import { checkDestination, DestinationRefusedError, type CheckedDestination } from './destination';
import {
  attemptTaskId,
  deliveryIdOf,
  deliveryRef,
  MAX_KEPT_ATTEMPTS,
  parseDeliveryTask,
  type DeliveryAttempt,
  type DeliveryFailure,
  type DeliveryRecord,
  type DeliveryTask,
} from './deliveryModel';
import { deliveryPolicy, DISABLE_AFTER_FAILING_MS, RETRY_WINDOW_MS, type DeliveryOverrides, type DeliveryPolicy } from './deliveryPolicy';
import { disableEndpointForDelivery, endpointRef } from './endpoints';
import { WEBHOOK_DELIVERY_QUEUE, WEBHOOK_EVENTS, WEBHOOK_RECORD_RETENTION_DAYS, type WebhookEventRecord } from './eventModel';
import { webhookLogs } from './logs';
import { TEST_EVENT_TYPE, type WebhookEndpointRecord } from './model';
import { sendSigned, type SendResult } from './sender';
import { ATTEMPT_HEADER, eventBody, SIGNATURE_HEADER, signatureHeader, USER_AGENT, WEBHOOK_ID_HEADER } from './signature';
import { activeSecretRefs } from './signingSecret';

/**
 * The `webhookDelivery` task: one attempt of one delivery. It reads the event and the endpoint
 * in the task's own project and environment (a task naming another partition's event or
 * endpoint finds nothing there, and is dropped), checks the destination again after resolving
 * it, signs the exact bytes and sends them to the checked address, records the attempt, and
 * schedules the next attempt itself as a new task (id `…-attempt-N`, delayed with jitter).
 *
 * Why the handler schedules retries instead of throwing for Cloud Tasks to retry: Cloud Tasks'
 * backoff has no jitter and counts attempts, not days; a scheduled task carries the attempt
 * number into the `Service-Webhook-Attempt` header and the record, the 3-day window is measured
 * on our clock (tests move it), and the next retry time is known and shown. A throw is kept for
 * our own faults (store or secret store unavailable): the queue's RETRY_POLICIES entry retries
 * the same attempt. Every step is idempotent: a task run twice finds its attempt recorded and
 * only makes sure the next one is queued.
 */

/** What the delivery uses; RootDeps has all of it, and the CLI builds it for a local first attempt. */
export interface DeliveryDeps {
  db: Firestore;
  clock: Clock;
  secrets: SecretStore;
  settings: Pick<Settings, 'webhooksAllowLoopback'>;
  tasks: TaskQueue;
  webhookDelivery?: DeliveryOverrides;
}

export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed' | 'repeated' | 'dropped';

/** The task handler (tasks/handlers.ts). */
export async function deliverWebhookTask(payload: Record<string, unknown>, deps: DeliveryDeps): Promise<void> {
  const task = parseDeliveryTask(payload);
  if (!task) {
    webhookLogs.deliveryDropped(payload, 'malformed_task');
    return;
  }
  await deliver(deps, task);
}

/** Why this task must not deliver, or null. Everything is read from the task's own partition. */
function dropReason(scope: EnvScope, task: DeliveryTask, event: WebhookEventRecord | undefined, endpoint: WebhookEndpointRecord | undefined): string | null {
  if (!event) return 'event_not_in_partition';
  if (event.eventId !== task.eventId || event.projectId !== scope.projectId || event.env !== scope.env) return 'event_not_in_partition';
  if (!endpoint) return 'endpoint_not_in_partition';
  if (endpoint.endpointId !== task.endpointId || endpoint.projectId !== scope.projectId || endpoint.env !== scope.env) return 'endpoint_not_in_partition';
  if (event.endpointId !== null && event.endpointId !== endpoint.endpointId) return 'event_for_another_endpoint';
  const subscribed = event.type === TEST_EVENT_TYPE || endpoint.eventTypes.length === 0 || (endpoint.eventTypes as string[]).includes(event.type);
  if (!subscribed) return 'not_subscribed';
  return null;
}

export async function deliver(deps: DeliveryDeps, task: DeliveryTask): Promise<DeliveryOutcome> {
  const scope = new EnvScope(deps.db, task.projectId, task.env);
  const deliveryId = deliveryIdOf(task);
  const [eventSnap, endpointSnap, deliverySnap] = await scope.getAll(scope.doc(WEBHOOK_EVENTS, task.eventId), endpointRef(scope, task.endpointId), deliveryRef(scope, deliveryId));
  const event = eventSnap.data() as WebhookEventRecord | undefined;
  const endpoint = endpointSnap.data() as WebhookEndpointRecord | undefined;
  const drop = dropReason(scope, task, event, endpoint);
  if (drop) {
    webhookLogs.deliveryDropped({ ...task }, drop);
    return 'dropped';
  }
  const existing = deliverySnap.data() as DeliveryRecord | undefined;
  if (existing && existing.state !== 'pending') return 'repeated';
  const done = existing?.attemptCount ?? 0;
  if ((task.attempt ?? 1) <= done) {
    // This attempt ran already (the task was run again): only make sure the next one is queued.
    if (existing?.nextRetryAt != null) await scheduleAttempt(deps, task, deliveryId, done + 1, existing.nextRetryAt);
    return 'repeated';
  }
  const policy = deliveryPolicy(deps.webhookDelivery);
  const started = deps.clock.now();
  if (endpoint!.disabled) {
    await finishWithoutAttempt(scope, deps, task, event!, deliveryId, started);
    return 'failed';
  }
  const attemptNumber = done + 1;
  const attempt = await attemptOnce(deps, policy, event!, endpoint!, attemptNumber, started);
  if (attempt.error === null) return recordDelivered(scope, deps, task, event!, deliveryId, attempt, deliverySnap, endpoint!);
  const recorded = await recordAttempt(scope, deps, policy, task, event!, deliveryId, attempt);
  if (recorded === 'raced') return 'repeated';
  if (recorded.nextRetryAt !== null) await scheduleAttempt(deps, task, deliveryId, attemptNumber + 1, recorded.nextRetryAt);
  return recorded.outcome;
}

/** Signs and sends one attempt; never throws for the receiver's sake (only for our own faults). */
async function attemptOnce(deps: DeliveryDeps, policy: DeliveryPolicy, event: WebhookEventRecord, endpoint: WebhookEndpointRecord, attemptNumber: number, started: number): Promise<DeliveryAttempt> {
  const refs = activeSecretRefs(endpoint, started);
  const generations = [endpoint.secret.generation, ...(refs.length > 1 ? [endpoint.previousSecret!.generation] : [])];
  // A secret store failure throws: the queue retries this same attempt (our fault, not the receiver's).
  const secrets = await Promise.all(refs.map((ref) => deps.secrets.read(endpoint.projectId, ref)));
  const body = eventBody(event.payload);
  const headers = {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    [WEBHOOK_ID_HEADER]: event.eventId,
    [ATTEMPT_HEADER]: String(attemptNumber),
    [SIGNATURE_HEADER]: signatureHeader(secrets, toUnixSeconds(started), body),
  };
  const clockStart = performance.now();
  const deadline = clockStart + policy.timeoutMs;
  const base = { attempt: attemptNumber, at: started, secretGenerations: generations };
  const elapsed = () => Math.round(performance.now() - clockStart);

  let checked: CheckedDestination;
  try {
    checked = await withinDeadline(checkDestination(endpoint.url, { allowLoopbackHttp: deps.settings.webhooksAllowLoopback, lookup: policy.lookup }), deadline);
  } catch (err) {
    if (err instanceof DestinationRefusedError) return { ...base, statusCode: null, latencyMs: elapsed(), responseBody: null, error: 'destination_refused', errorDetail: `${err.reason}: ${err.message}`.slice(0, 300) };
    if (err === TIMED_OUT) return { ...base, statusCode: null, latencyMs: elapsed(), responseBody: null, error: 'timeout', errorDetail: 'the host did not resolve within the timeout' };
    throw err;
  }
  const result: SendResult = await sendSigned({ url: checked.url, address: checked.addresses[0], body, headers, deadline });
  const status = result.statusCode;
  const error = result.error ? result.error.kind : status === null ? 'connection' : status >= 200 && status < 300 ? null : status === 410 ? 'gone' : 'http_status';
  return { ...base, statusCode: status, latencyMs: elapsed(), responseBody: result.responseBody, error, errorDetail: result.error?.detail ?? null };
}

const TIMED_OUT = Symbol('timed out');
function withinDeadline<T>(work: Promise<T>, deadline: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(TIMED_OUT), Math.max(0, deadline - performance.now()));
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const expiry = (createdAt: number) => Timestamp.fromMillis(createdAt + WEBHOOK_RECORD_RETENTION_DAYS * DAY);

function freshRecord(task: DeliveryTask, event: WebhookEventRecord, deliveryId: string, now: number): DeliveryRecord {
  return {
    deliveryId,
    projectId: task.projectId,
    env: task.env,
    eventId: task.eventId,
    eventType: event.type,
    endpointId: task.endpointId,
    replay: task.replay ?? null,
    state: 'pending',
    attempts: [],
    attemptCount: 0,
    firstAttemptAt: null,
    nextRetryAt: null,
    deliveredAt: null,
    failedAt: null,
    failure: null,
    createdAt: now,
    updatedAt: now,
    expiresAt: expiry(now),
  };
}

/** The endpoint was disabled before this attempt: the delivery ends, failed, without sending. */
async function finishWithoutAttempt(scope: EnvScope, deps: DeliveryDeps, task: DeliveryTask, event: WebhookEventRecord, deliveryId: string, now: number): Promise<void> {
  await scope.runTransaction(async (tx) => {
    const snapshot = await tx.get(deliveryRef(scope, deliveryId));
    const current = (snapshot.data() as DeliveryRecord | undefined) ?? freshRecord(task, event, deliveryId, now);
    if (current.state !== 'pending') return;
    tx.set(deliveryRef(scope, deliveryId), { ...current, state: 'failed', failure: 'endpoint_disabled', failedAt: now, nextRetryAt: null, updatedAt: now } satisfies DeliveryRecord);
  });
  webhookLogs.deliveryFailed(scope.projectId, scope.env, deliveryId, 'endpoint_disabled');
}

/**
 * The common case, in one commit: the attempt delivered. The record is created, or updated on
 * the condition that nobody wrote it since it was read before the attempt (a second run of the
 * task then loses, and sent a duplicate the receiver drops by id); an endpoint whose run of
 * failures this success ends is updated in the same commit.
 */
async function recordDelivered(scope: EnvScope, deps: DeliveryDeps, task: DeliveryTask, event: WebhookEventRecord, deliveryId: string, attempt: DeliveryAttempt, before: DocumentSnapshot, endpoint: WebhookEndpointRecord): Promise<DeliveryOutcome> {
  const now = deps.clock.now();
  const current = (before.data() as DeliveryRecord | undefined) ?? freshRecord(task, event, deliveryId, attempt.at);
  const next: DeliveryRecord = {
    ...current,
    state: 'delivered',
    attempts: [...current.attempts, attempt].slice(-MAX_KEPT_ATTEMPTS),
    attemptCount: attempt.attempt,
    firstAttemptAt: current.firstAttemptAt ?? attempt.at,
    nextRetryAt: null,
    deliveredAt: now,
    updatedAt: now,
  };
  const batch = scope.batch();
  const ref = deliveryRef(scope, deliveryId);
  if (before.exists) batch.update(ref, { ...next }, { lastUpdateTime: before.updateTime! });
  else batch.create(ref, next);
  if (endpoint.failingSince != null) batch.update(endpointRef(scope, endpoint.endpointId), { failingSince: null });
  try {
    await scope.commit(batch);
  } catch (err) {
    const code = (err as { code?: number }).code;
    if (code === ALREADY_EXISTS || code === FAILED_PRECONDITION) return 'repeated';
    throw err;
  }
  return 'delivered';
}

/** gRPC status codes of a lost precondition. */
const ALREADY_EXISTS = 6;
const FAILED_PRECONDITION = 9;

interface Recorded {
  outcome: 'retrying' | 'failed';
  nextRetryAt: number | null;
}

/**
 * Records a failed attempt and decides what follows, in one transaction with the endpoint: a
 * 410 fails the delivery and disables the endpoint; any other failure schedules a retry within 3 days of the first attempt, or fails
 * the delivery, and disables an endpoint that has failed continuously for 3 days. Each disable
 * is audited in the same transaction. 'raced': another run of the task recorded this attempt.
 */
async function recordAttempt(scope: EnvScope, deps: DeliveryDeps, policy: DeliveryPolicy, task: DeliveryTask, event: WebhookEventRecord, deliveryId: string, attempt: DeliveryAttempt): Promise<Recorded | 'raced'> {
  const disabled: { reason: string; auditEventId: string }[] = [];
  const failures: DeliveryFailure[] = [];
  const recorded = await scope.runTransaction(async (tx): Promise<Recorded | 'raced'> => {
    disabled.length = 0;
    failures.length = 0;
    const now = deps.clock.now();
    const [deliverySnap, endpointSnap] = await tx.getAll(deliveryRef(scope, deliveryId), endpointRef(scope, task.endpointId));
    const current = (deliverySnap.data() as DeliveryRecord | undefined) ?? freshRecord(task, event, deliveryId, attempt.at);
    if (current.state !== 'pending' || current.attemptCount !== attempt.attempt - 1) return 'raced';
    const endpoint = endpointSnap.data() as WebhookEndpointRecord | undefined;
    const next: DeliveryRecord = {
      ...current,
      attempts: [...current.attempts, attempt].slice(-MAX_KEPT_ATTEMPTS),
      attemptCount: attempt.attempt,
      firstAttemptAt: current.firstAttemptAt ?? attempt.at,
      nextRetryAt: null,
      updatedAt: now,
    };
    let outcome: Recorded['outcome'];
    if (attempt.error === 'gone') {
      outcome = 'failed';
      failures.push('endpoint_gone');
      Object.assign(next, { state: 'failed', failedAt: now, failure: 'endpoint_gone' });
      if (endpoint && !endpoint.disabled) {
        disabled.push({ reason: 'gone', auditEventId: disableEndpointForDelivery(tx, scope, endpoint, 'gone', `HTTP 410 Gone answered delivery ${deliveryId}, attempt ${attempt.attempt}.`, now) });
      }
    } else {
      let endpointDisabled = Boolean(endpoint?.disabled);
      if (endpoint && !endpoint.disabled) {
        const failingSince = endpoint.failingSince ?? attempt.at;
        if (now - failingSince >= DISABLE_AFTER_FAILING_MS) {
          const since = new Date(failingSince).toISOString();
          disabled.push({ reason: 'failing', auditEventId: disableEndpointForDelivery(tx, scope, endpoint, 'failing', `Every delivery attempt failed since ${since}.`, now) });
          endpointDisabled = true;
        } else if (endpoint.failingSince == null) {
          tx.update(endpointRef(scope, endpoint.endpointId), { failingSince });
        }
      }
      const deadline = next.firstAttemptAt! + RETRY_WINDOW_MS;
      if (now >= deadline || endpointDisabled) {
        const failure: DeliveryFailure = now >= deadline ? 'retries_exhausted' : 'endpoint_disabled';
        outcome = 'failed';
        failures.push(failure);
        Object.assign(next, { state: 'failed', failedAt: now, failure });
      } else {
        outcome = 'retrying';
        next.nextRetryAt = Math.min(now + policy.retryDelaySeconds(attempt.attempt) * 1000, deadline);
      }
    }
    tx.set(deliveryRef(scope, deliveryId), next);
    return { outcome, nextRetryAt: next.nextRetryAt };
  });
  if (recorded === 'raced') return recorded;
  if (attempt.error) webhookLogs.attemptFailed(scope.projectId, scope.env, deliveryId, attempt.attempt, attempt.error, attempt.statusCode, recorded.nextRetryAt);
  for (const failure of failures) webhookLogs.deliveryFailed(scope.projectId, scope.env, deliveryId, failure);
  for (const { reason, auditEventId } of disabled) webhookLogs.endpointDisabled(scope.projectId, scope.env, task.endpointId, reason, auditEventId);
  return recorded;
}

/** Queues attempt `attempt` of the delivery for `at` (a deterministic id: queuing it twice is a no-op). */
async function scheduleAttempt(deps: DeliveryDeps, task: DeliveryTask, deliveryId: string, attempt: number, at: number): Promise<void> {
  const payload: DeliveryTask = { projectId: task.projectId, env: task.env, eventId: task.eventId, endpointId: task.endpointId, ...(task.replay ? { replay: task.replay } : {}), attempt };
  const delaySeconds = Math.max(0, Math.ceil((at - deps.clock.now()) / 1000));
  await deps.tasks.enqueue(WEBHOOK_DELIVERY_QUEUE, { ...payload }, { id: attemptTaskId(deliveryId, attempt), ...(delaySeconds > 0 ? { scheduleDelaySeconds: delaySeconds } : {}) });
}
