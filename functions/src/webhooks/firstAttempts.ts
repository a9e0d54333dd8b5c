import type { Clock } from '../clock';
import type { EnvScope } from '../store/scope';
import { isAlreadyExists } from '../store/contention';
import { readAllInTx } from '../store/converters';
import type { EnqueueResult, TaskQueue } from '../tasks/queue';
import { abandonAttempt, attemptOnce, freshRecord, prepareAttempt, readSigningSecrets, type Claimed, type DeliveryDeps, type PreparedAttempt } from './deliver';
import { deliveryRef, type DeliveryRecord } from './deliveryModel';
import { recordOutcomes, type MadeAttempt } from './deliveryOutcome';
import { CLAIM_MARGIN_MS, deliveryPolicy, type DeliveryPolicy } from './deliveryPolicy';
import { deliveryTaskId, WEBHOOK_DELIVERY_QUEUE, type DeliveryTaskPayload, type WebhookEventRecord } from './eventModel';
import { webhookLogs } from './logs';
import type { DeliveryTarget } from './model';

/**
 * The fan-out task makes the FIRST attempt of each of its event's deliveries itself, so that a
 * healthy receiver gets the event one task hop after the change instead of two:
 *
 * 1. reads every target's signing secrets (a failure leaves that delivery to its task, nothing
 *    claimed); an endpoint that is failing (`failingSince` set) is left to its task too;
 * 2. claims attempt 1 of every target delivery in ONE commit (a batch of `create()`s), creating
 *    its record with `inFlight` (`attemptsBeforeTask: 1`); when a record already exists (another
 *    fan-out of the same event, or its task, got there first) the batch fails as a whole and a
 *    transaction claims the others, leaving that delivery to its task;
 * 3. sends the claimed attempts in parallel (the delivery's own signing, destination check and
 *    sender); each destination is resolved, checked and connected to (a kept connection when
 *    there is one) while the claim commits, and nothing is written to it before the commit;
 * 4. records every answer in ONE transaction (deliveryOutcome.ts, the task's rules);
 * 5. enqueues, concurrently, the `webhookDelivery` task (deterministic id) of every target that is
 *    not finished: a failed attempt's task is scheduled at its `nextRetryAt` (the queue's first
 *    backoff), the others run at once.
 *
 * Crash safety rests on the event's `fannedOutAt`, set by the caller only after step 5: until
 * then the fan-out task is retried by its queue (and the relay finds the event a minute after
 * its change), and a fan-out that finds a delivery record already there enqueues that
 * delivery's task. So a crash after the claim (nothing sent, or sent and not recorded) ends in
 * a task that finds the claim expired and records the attempt `interrupted` before the next;
 * a crash after the record ends in the task its record needs; a duplicate fan-out never claims
 * a delivery twice (each record is created once: `create()` fails when it exists).
 */

/** What the fan-out uses: the delivery's dependencies and the queue (the root dependencies have all of it). */
export interface FanoutDeps extends DeliveryDeps {
  tasks: TaskQueue;
}

interface ClaimedTarget {
  endpoint: DeliveryTarget;
  deliveryId: string;
  claim: Claimed;
  signing: { secrets: string[]; generations: number[] };
  prepared: PreparedAttempt;
}

export interface FirstAttemptReport {
  /** Attempts this fan-out made (claimed and sent). */
  attempted: number;
  delivered: number;
  /** Tasks enqueued (failed attempts' retries and deliveries left to their task). */
  tasks: number;
}

export async function deliverFirstAttempts(scope: EnvScope, deps: FanoutDeps, event: WebhookEventRecord, targets: readonly DeliveryTarget[]): Promise<FirstAttemptReport> {
  const policy = deliveryPolicy(deps.webhookDelivery);
  const leftToTask = (endpointId: string, reason: 'secrets_unavailable' | 'attempt_threw', err: unknown) =>
    webhookLogs.firstAttemptLeftToTask(scope.projectId, scope.env, deliveryTaskId(event.eventId, endpointId), reason, err instanceof Error ? err.name : 'unknown');
  // A disabled endpoint (only a `webhook.test` event names one) is the task's to end without
  // sending. A failing one (`failingSince`) is the delivery queue's: its rate limits keep a
  // receiver's outage from holding fan-outs (up to the 10 s timeout each) or becoming a storm.
  const signing = await Promise.all(
    targets.map((endpoint) =>
      endpoint.disabled || endpoint.failingSince != null
        ? null
        : readSigningSecrets(deps, endpoint).catch((err: unknown) => {
            leftToTask(endpoint.endpointId, 'secrets_unavailable', err);
            return null;
          }),
    ),
  );
  // Each destination is resolved, checked and connected to while the claim commits; nothing is written before it.
  const claimable = targets.flatMap((endpoint, i) => (signing[i] ? [{ endpoint, signing: signing[i], prepared: prepareAttempt(deps, policy, endpoint) }] : []));
  const { claimed, finished } = await claimFirstAttempts(scope, deps.clock, policy, event, claimable).catch((err: unknown) => {
    claimable.forEach((target) => abandonAttempt(target.prepared));
    throw err;
  });
  const claimedIds = new Set(claimed.map((target) => target.endpoint.endpointId));
  claimable.filter((target) => !claimedIds.has(target.endpoint.endpointId)).forEach((target) => abandonAttempt(target.prepared));

  const sent = await Promise.allSettled(claimed.map((target) => attemptOnce(deps, policy, event, target.endpoint, target.claim, target.signing, target.prepared)));
  // An attempt that threw (not the receiver's doing) stays claimed: its task records it interrupted once the claim expires.
  const made: MadeAttempt[] = claimed.flatMap((target, i) => {
    const result = sent[i];
    if (result.status === 'fulfilled') return [{ deliveryId: target.deliveryId, endpointId: target.endpoint.endpointId, attempt: result.value }];
    leftToTask(target.endpoint.endpointId, 'attempt_threw', result.reason);
    return [];
  });
  const recorded = await recordOutcomes(scope, deps.clock, policy, made);

  const retryAt = new Map<string, number | null>();
  made.forEach((m, i) => {
    const result = recorded[i];
    if (result !== 'raced' && result.outcome !== 'retrying') finished.add(m.endpointId);
    else retryAt.set(m.endpointId, result === 'raced' ? null : result.nextRetryAt);
  });
  const now = deps.clock.now();
  const needTask = targets.filter((endpoint) => !finished.has(endpoint.endpointId));
  await Promise.all(
    needTask.map((endpoint) => {
      const at = retryAt.get(endpoint.endpointId) ?? null;
      return enqueueDeliveryTask(deps.tasks, scope, event.eventId, endpoint.endpointId, at === null ? undefined : Math.max(0, Math.ceil((at - now) / 1000)));
    }),
  );
  const delivered = recorded.filter((r) => r !== 'raced' && r.outcome === 'delivered').length;
  return { attempted: made.length, delivered, tasks: needTask.length };
}

type ClaimableTarget = Omit<ClaimedTarget, 'claim' | 'deliveryId'>;

/**
 * Claims attempt 1 of each target delivery whose record does not exist yet (the record created
 * with it in flight). The common case — no record yet — is ONE batched commit of `create()`s:
 * each fails if its record exists, and the batch with it, so two fan-outs never both claim.
 * Then (or when the batch found a record) one transaction reads the records and claims only the
 * missing ones. `finished`: targets whose existing record is no longer pending; every other
 * existing record is left to its task.
 */
async function claimFirstAttempts(scope: EnvScope, clock: Clock, policy: DeliveryPolicy, event: WebhookEventRecord, targets: readonly ClaimableTarget[]): Promise<{ claimed: ClaimedTarget[]; finished: Set<string> }> {
  if (targets.length === 0) return { claimed: [], finished: new Set() };
  const ids = targets.map((t) => deliveryTaskId(event.eventId, t.endpoint.endpointId));
  const claimAt = (now: number) => (target: ClaimableTarget, i: number) => ({ ...target, deliveryId: ids[i], claim: { attempt: 1, startedAt: now } });
  const now = clock.now();
  const batch = scope.batch();
  targets.forEach((target, i) => batch.create(deliveryRef(scope, ids[i]), claimedRecord(scope, event, target.endpoint.endpointId, ids[i], policy, now)));
  try {
    await scope.commit(batch);
    return { claimed: targets.map(claimAt(now)), finished: new Set() };
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  return scope.runTransaction(async (tx) => {
    const at = clock.now();
    const snapshots = await readAllInTx(tx, ...ids.map((id) => deliveryRef(scope, id)));
    const claimed: ClaimedTarget[] = [];
    const finished = new Set<string>();
    snapshots.forEach((snapshot, i) => {
      const { endpoint } = targets[i];
      const existing = snapshot.data();
      if (existing) {
        if (existing.state !== 'pending') finished.add(endpoint.endpointId);
        return;
      }
      tx.create(deliveryRef(scope, ids[i]), claimedRecord(scope, event, endpoint.endpointId, ids[i], policy, at));
      claimed.push(claimAt(at)(targets[i], i));
    });
    return { claimed, finished };
  });
}

/** A new delivery record with attempt 1 claimed by the fan-out. */
function claimedRecord(scope: EnvScope, event: WebhookEventRecord, endpointId: string, deliveryId: string, policy: DeliveryPolicy, now: number): DeliveryRecord {
  const task = { projectId: scope.projectId, env: scope.env, eventId: event.eventId, endpointId };
  return {
    ...freshRecord(task, event, deliveryId, now),
    attemptCount: 1,
    firstAttemptAt: now,
    attemptsBeforeTask: 1,
    inFlight: { attempt: 1, startedAt: now, expiresAt: now + policy.timeoutMs + CLAIM_MARGIN_MS },
  };
}

/** The delivery's task (deterministic id: a second enqueue of the same delivery is a no-op), now or after `delaySeconds`. */
export function enqueueDeliveryTask(tasks: TaskQueue, scope: EnvScope, eventId: string, endpointId: string, delaySeconds?: number): Promise<EnqueueResult> {
  const payload: DeliveryTaskPayload = { projectId: scope.projectId, env: scope.env, eventId, endpointId };
  return tasks.enqueue(WEBHOOK_DELIVERY_QUEUE, { ...payload }, { id: deliveryTaskId(eventId, endpointId), ...(delaySeconds === undefined ? {} : { scheduleDelaySeconds: delaySeconds }) });
}
