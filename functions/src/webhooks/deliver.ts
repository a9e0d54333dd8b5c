import { Timestamp, type Firestore } from 'firebase-admin/firestore';
import { DAY, toUnixSeconds, type Clock } from '../clock';
import type { Settings } from '../config/settings';
import type { SecretStore } from '../secrets/store';
import { EnvScope } from '../store/scope';
import { RetryLaterError } from '../tasks/queue';
import { destinationConnections } from './connections';
import { checkDestination, DestinationRefusedError } from './destination';
import {
  deliveryIdOf,
  deliveryRef,
  MAX_KEPT_ATTEMPTS,
  parseDeliveryTask,
  type DeliveryAttempt,
  type DeliveryRecord,
  type DeliveryTask,
} from './deliveryModel';
import { CLAIM_MARGIN_MS, deliveryPolicy, RETRY_WINDOW_MS, type DeliveryOverrides, type DeliveryPolicy } from './deliveryPolicy';
import { recordOutcomes, retryDelayAfter } from './deliveryOutcome';
import { endpointRef } from './endpoints';
import { webhookEventRef } from './outbox';
import { WEBHOOK_RECORD_RETENTION_DAYS, type WebhookEventRecord } from './eventModel';
import { webhookLogs } from './logs';
import { TEST_EVENT_TYPE, type DeliveryTarget, type WebhookEndpointRecord } from './model';
import { openRequest, type PendingRequest, type SendResult } from './sender';
import { eventBody, signedHeaders } from './signature';
import { activeSecretRefs } from './signingSecret';

/**
 * The `webhookDelivery` task: one attempt of one delivery per run. It reads the event and the
 * endpoint in the task's own project and environment (a task naming another partition's event
 * or endpoint finds nothing there, and is dropped), claims the next attempt on the delivery
 * record in a transaction, checks the destination again after resolving it, signs the exact
 * bytes and sends them to the checked address, and records the answer in the attempt it claimed.
 *
 * Retries are the queue's: a failed attempt throws `RetryLaterError`, and Cloud Tasks (or the
 * Tasks emulator, or the in-process queue, all from tasks/queue.ts QUEUE_CONFIGS) runs the task
 * again after its retryConfig backoff. The record decides everything else:
 * - a run that finds an attempt in flight (claimed, not yet recorded, not expired), or comes
 *   well before the recorded `nextRetryAt`, sends nothing and asks to be retried (it ends once
 *   the delivery is finished): a duplicate task never sends out of turn, and no task is
 *   acknowledged while its delivery may still need it;
 * - no attempt is ever overwritten: each is claimed once (its number is the record's count) and
 *   appended once, by the run that claimed it;
 * - at most MAX_DELIVERY_ATTEMPTS attempts and none after 3 days, whatever the queue does.
 */

/** What the delivery uses; RootDeps has all of it, and the CLI builds it for a local first attempt. */
export interface DeliveryDeps {
  db: Firestore;
  clock: Clock;
  secrets: SecretStore;
  settings: Pick<Settings, 'webhooksAllowLoopback'>;
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
  const [eventSnap, endpointSnap, deliverySnap] = await scope.getAll(webhookEventRef(scope, task.eventId), endpointRef(scope, task.endpointId), deliveryRef(scope, deliveryId));
  const event = eventSnap.data();
  const endpoint = endpointSnap.data();
  const drop = dropReason(scope, task, event, endpoint);
  if (drop) {
    webhookLogs.deliveryDropped({ ...task }, drop);
    return 'dropped';
  }
  const existing = deliverySnap.data();
  if (existing && existing.state !== 'pending') return 'repeated';
  const policy = deliveryPolicy(deps.webhookDelivery);
  if (endpoint!.disabled) {
    await finishWithoutAttempt(scope, deps, task, event!, deliveryId, deps.clock.now());
    return 'failed';
  }
  // Our own faults come before the claim: a secret store failure throws and the queue retries
  // with nothing claimed (the next run makes this same attempt).
  const { secrets, generations } = await readSigningSecrets(deps, endpoint!);
  // Resolution, check and connection go on while the claim commits; nothing is written before it.
  const prepared = prepareAttempt(deps, policy, endpoint!);
  const claim = await claimAttempt(scope, deps, policy, task, event!, deliveryId).catch((err: unknown) => {
    abandonAttempt(prepared);
    throw err;
  });
  if (typeof claim === 'string') abandonAttempt(prepared);
  if (claim === 'finished') return 'repeated';
  // A run that must not send now (another is sending, or the retry is not due) sends nothing and
  // asks to be retried, never acknowledging its task: it may be the very task the other run
  // needs retried (Cloud Tasks runs a task at least once), and a delivery must never be left
  // pending with no task behind it. It ends when it finds the delivery finished.
  if (claim === 'in_flight' || claim === 'not_due') throw new RetryLaterError(`webhook delivery ${deliveryId}: ${claim === 'in_flight' ? 'an attempt is in flight' : 'the next attempt is not due yet'}; this run sends nothing`);
  if (claim === 'exhausted') return 'failed';
  const attempt = await attemptOnce(deps, policy, event!, endpoint!, claim, { secrets, generations }, prepared);
  const [recorded] = await recordOutcomes(scope, deps.clock, policy, [{ deliveryId, endpointId: task.endpointId, attempt }]);
  if (recorded === 'raced') return 'repeated';
  if (recorded.outcome === 'retrying') {
    // The queue's retry is the next attempt (its retryConfig backoff, the `nextRetryAt` recorded).
    throw new RetryLaterError(`webhook delivery ${deliveryId} attempt ${attempt.attempt} failed (${attempt.error}); the queue retries it`);
  }
  return recorded.outcome;
}

/** The endpoint's active signing secrets, in signing order, with their generations. */
export async function readSigningSecrets(deps: Pick<DeliveryDeps, 'secrets' | 'clock'>, endpoint: DeliveryTarget): Promise<{ secrets: string[]; generations: number[] }> {
  const refs = activeSecretRefs(endpoint, deps.clock.now());
  const secrets = await Promise.all(refs.map((ref) => deps.secrets.read(endpoint.projectId, ref)));
  const generations = [endpoint.secret.generation, ...(refs.length > 1 ? [endpoint.previousSecret!.generation] : [])];
  return { secrets, generations };
}

/**
 * The part of an attempt that can start before its claim commits: the destination's resolution
 * and check (`checkDestination`), then a connection to the checked address (a kept one, or one
 * being opened: connections.ts). Nothing is written to the receiver until `attemptOnce` sends
 * on it; an attempt that is not claimed is `abandonAttempt`ed. The attempt's 10 s run from here.
 */
export interface PreparedAttempt {
  /** `performance.now()` by which the attempt must be complete (resolution included). */
  deadline: number;
  destination: Promise<{ request: PendingRequest } | { notSent: Pick<DeliveryAttempt, 'error' | 'errorDetail'> } | { failed: unknown }>;
}

export function prepareAttempt(deps: Pick<DeliveryDeps, 'settings'>, policy: DeliveryPolicy, endpoint: DeliveryTarget): PreparedAttempt {
  const deadline = performance.now() + policy.timeoutMs;
  const destination = withinDeadline(checkDestination(endpoint.url, { allowLoopbackHttp: deps.settings.webhooksAllowLoopback, lookup: policy.lookup }), deadline).then(
    (checked) => {
      const address = checked.addresses[0];
      return { request: openRequest({ url: checked.url, address, agent: destinationConnections.agentFor(endpoint.endpointId, checked.url, address) }) };
    },
    (err: unknown) => {
      if (err instanceof DestinationRefusedError) return { notSent: { error: 'destination_refused' as const, errorDetail: `${err.reason}: ${err.message}`.slice(0, 300) } };
      if (err === TIMED_OUT) return { notSent: { error: 'timeout' as const, errorDetail: 'the host did not resolve within the timeout' } };
      return { failed: err };
    },
  );
  return { deadline, destination };
}

/** An attempt prepared and not claimed: its connection is closed unused. */
export function abandonAttempt(prepared: PreparedAttempt): void {
  void prepared.destination.then((d) => {
    if ('request' in d) d.request.abandon();
  });
}

/** Signs and sends one claimed attempt on its prepared connection; never throws for the receiver's sake. */
export async function attemptOnce(
  deps: Pick<DeliveryDeps, 'settings'>,
  policy: DeliveryPolicy,
  event: WebhookEventRecord,
  endpoint: DeliveryTarget,
  claim: Claimed,
  { secrets, generations }: { secrets: string[]; generations: number[] },
  prepared: PreparedAttempt,
): Promise<DeliveryAttempt> {
  const body = eventBody(event.payload);
  const headers = signedHeaders({ eventId: event.eventId, attempt: claim.attempt, timestampSeconds: toUnixSeconds(claim.startedAt), body, secrets });
  const base = { attempt: claim.attempt, at: claim.startedAt, secretGenerations: generations };
  // The attempt's latency counts from here (its send, after the claim), not the claim's commit it overlapped.
  const sendStart = performance.now();
  const elapsed = () => Math.round(performance.now() - sendStart);

  const destination = await prepared.destination;
  if ('failed' in destination) throw destination.failed;
  if ('notSent' in destination) return { ...base, statusCode: null, latencyMs: elapsed(), responseBody: null, ...destination.notSent };
  const result: SendResult = await destination.request.send(headers, body, prepared.deadline);
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

export function freshRecord(task: DeliveryTask, event: WebhookEventRecord, deliveryId: string, now: number): DeliveryRecord {
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
    inFlight: null,
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
    const current = snapshot.data() ?? freshRecord(task, event, deliveryId, now);
    if (current.state !== 'pending') return;
    tx.set(deliveryRef(scope, deliveryId), { ...current, state: 'failed', failure: 'endpoint_disabled', failedAt: now, nextRetryAt: null, inFlight: null, updatedAt: now } satisfies DeliveryRecord);
  });
  webhookLogs.deliveryFailed(scope.projectId, scope.env, deliveryId, 'endpoint_disabled');
}

export interface Claimed {
  attempt: number;
  startedAt: number;
}

type ClaimRefusal = 'finished' | 'in_flight' | 'not_due' | 'exhausted';

/**
 * Claims the next attempt in a transaction: its number is the record's count plus one, and it
 * is in flight until its answer is recorded. Nothing is sent on 'finished' (the delivery is no
 * longer pending), 'in_flight' (another run is making an attempt now) or 'not_due' (this run
 * came well before the queue's retry was due: a second task for the same delivery).
 * 'exhausted': the attempts or the 3 days are used up (the record is marked failed here,
 * whatever the queue would still do).
 */
async function claimAttempt(scope: EnvScope, deps: DeliveryDeps, policy: DeliveryPolicy, task: DeliveryTask, event: WebhookEventRecord, deliveryId: string): Promise<Claimed | ClaimRefusal> {
  const ref = deliveryRef(scope, deliveryId);
  const claimed = await scope.runTransaction(async (tx): Promise<Claimed | ClaimRefusal> => {
    const now = deps.clock.now();
    const snapshot = await tx.get(ref);
    const current = snapshot.data() ?? freshRecord(task, event, deliveryId, now);
    if (current.state !== 'pending') return 'finished';
    const next: DeliveryRecord = { ...current, inFlight: null, updatedAt: now };
    if (current.inFlight) {
      if (current.inFlight.expiresAt > now) return 'in_flight';
      // The run that claimed it died before recording an answer: say so, never leave a gap.
      const { attempt, startedAt } = current.inFlight;
      const lost: DeliveryAttempt = { attempt, at: startedAt, statusCode: null, latencyMs: 0, responseBody: null, error: 'interrupted', errorDetail: 'the attempt was not recorded by the run that made it', secretGenerations: [] };
      next.attempts = [...current.attempts, lost].slice(-MAX_KEPT_ATTEMPTS);
    } else if (current.nextRetryAt !== null && current.attemptCount > 0) {
      // The queue's retry comes at nextRetryAt (give or take its dispatch delay); a run long before it is another task.
      const backoffMs = retryDelayAfter(policy, current, current.attemptCount) * 1000;
      if (now < current.nextRetryAt - backoffMs / 2) return 'not_due';
    }
    const windowEnded = current.firstAttemptAt !== null && now >= current.firstAttemptAt + RETRY_WINDOW_MS;
    if (current.attemptCount >= policy.maxAttempts || windowEnded) {
      tx.set(ref, { ...next, state: 'failed', failure: 'retries_exhausted', failedAt: now, nextRetryAt: null } satisfies DeliveryRecord);
      return 'exhausted';
    }
    const attempt = current.attemptCount + 1;
    tx.set(ref, {
      ...next,
      attemptCount: attempt,
      firstAttemptAt: current.firstAttemptAt ?? now,
      nextRetryAt: null,
      inFlight: { attempt, startedAt: now, expiresAt: now + policy.timeoutMs + CLAIM_MARGIN_MS },
    } satisfies DeliveryRecord);
    return { attempt, startedAt: now };
  });
  if (claimed === 'exhausted') webhookLogs.deliveryFailed(scope.projectId, scope.env, deliveryId, 'retries_exhausted');
  return claimed;
}
