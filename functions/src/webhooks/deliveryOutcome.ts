import type { Transaction } from 'firebase-admin/firestore';
import type { Clock } from '../clock';
import type { EnvScope } from '../store/scope';
import { readGroupsInTx } from '../store/converters';
import { deliveryRef, MAX_KEPT_ATTEMPTS, type DeliveryAttempt, type DeliveryFailure, type DeliveryRecord } from './deliveryModel';
import { DISABLE_AFTER_FAILING_MS, RETRY_WINDOW_MS, type DeliveryPolicy } from './deliveryPolicy';
import { readForDirectory, type DirectoryRead } from './directory';
import { disableEndpointForDelivery, endpointRef } from './endpoints';
import { webhookLogs } from './logs';
import type { WebhookEndpointRecord } from './model';

/**
 * Recording claimed attempts' answers (the delivery task records one, the fan-out's first
 * attempts record all of theirs in one transaction). Outcomes: a 2xx delivers (and ends the
 * endpoint's run of failures); a 410 fails the delivery and disables the endpoint; any other
 * failure leaves the delivery pending for the queue's retry (`nextRetryAt`), or fails it when
 * the attempts or the 3 days are used up, and disables an endpoint that has failed continuously
 * for 3 days. Each disable is audited in the same transaction. 'raced': the claim was taken
 * over (the run outlived it): nothing is recorded, the attempt stays recorded as interrupted.
 */

export interface MadeAttempt {
  deliveryId: string;
  endpointId: string;
  attempt: DeliveryAttempt;
}

export interface Recorded {
  outcome: 'delivered' | 'retrying' | 'failed';
  nextRetryAt: number | null;
}

export type RecordResult = Recorded | 'raced';

/**
 * Seconds until the queue's next run of the delivery's task after attempt `attempt` failed.
 * Attempts made before the task's first run (the fan-out's first attempt) are not the task's
 * failures: the queue's backoff counts only the task's own.
 */
export function retryDelayAfter(policy: DeliveryPolicy, record: Pick<DeliveryRecord, 'attemptsBeforeTask'>, attempt: number): number {
  return policy.retryDelaySeconds(Math.max(1, attempt - (record.attemptsBeforeTask ?? 0)));
}

interface Effects {
  disabled: { reason: string; auditEventId: string }[];
  failures: DeliveryFailure[];
}

/** Records every made attempt in ONE transaction (reads all deliveries and their endpoints, one commit). */
export async function recordOutcomes(scope: EnvScope, clock: Clock, policy: DeliveryPolicy, made: readonly MadeAttempt[]): Promise<RecordResult[]> {
  if (made.length === 0) return [];
  let effects: Effects[] = [];
  const results = await scope.runTransaction(async (tx): Promise<RecordResult[]> => {
    effects = made.map(() => ({ disabled: [], failures: [] }));
    const now = clock.now();
    const [deliveries, endpoints] = await readGroupsInTx(
      tx,
      made.map((m) => deliveryRef(scope, m.deliveryId)),
      made.map((m) => endpointRef(scope, m.endpointId)),
    );
    // An answer that disables its endpoint changes the partition's directory: read it (before any write) only then.
    const disables = made.some((m, i) => disableReason(m, deliveries[i].data(), endpoints[i].data(), now) !== null);
    const directory = disables ? await readForDirectory(tx, scope) : null;
    return made.map((m, i) => recordOne(tx, scope, policy, m, deliveries[i].data(), endpoints[i].data(), now, effects[i], directory));
  });
  results.forEach((recorded, i) => {
    if (recorded === 'raced') return;
    const { deliveryId, endpointId, attempt } = made[i];
    if (attempt.error) webhookLogs.attemptFailed(scope.projectId, scope.env, deliveryId, attempt.attempt, attempt.error, attempt.statusCode, recorded.nextRetryAt);
    for (const failure of effects[i].failures) webhookLogs.deliveryFailed(scope.projectId, scope.env, deliveryId, failure);
    for (const { reason, auditEventId } of effects[i].disabled) webhookLogs.endpointDisabled(scope.projectId, scope.env, endpointId, reason, auditEventId);
  });
  return results;
}

const isClaimed = (made: MadeAttempt, current: DeliveryRecord | undefined): current is DeliveryRecord =>
  current !== undefined && current.state === 'pending' && current.inFlight?.attempt === made.attempt.attempt;

/** Whether recording this answer disables its endpoint: a 410, or a failure 3 days into a run of failures. */
function disableReason(made: MadeAttempt, current: DeliveryRecord | undefined, endpoint: WebhookEndpointRecord | undefined, now: number): 'gone' | 'failing' | null {
  const { attempt } = made;
  if (!isClaimed(made, current) || !endpoint || endpoint.disabled || attempt.error === null) return null;
  if (attempt.error === 'gone') return 'gone';
  return now - (endpoint.failingSince ?? attempt.at) >= DISABLE_AFTER_FAILING_MS ? 'failing' : null;
}

function recordOne(
  tx: Transaction,
  scope: EnvScope,
  policy: DeliveryPolicy,
  made: MadeAttempt,
  current: DeliveryRecord | undefined,
  endpoint: WebhookEndpointRecord | undefined,
  now: number,
  effects: Effects,
  directory: DirectoryRead | null,
): RecordResult {
  const { deliveryId, attempt } = made;
  if (!isClaimed(made, current)) return 'raced';
  const disable = disableReason(made, current, endpoint, now);
  const next: DeliveryRecord = { ...current, attempts: [...current.attempts, attempt].slice(-MAX_KEPT_ATTEMPTS), inFlight: null, nextRetryAt: null, updatedAt: now };
  let outcome: Recorded['outcome'];
  if (attempt.error === null) {
    outcome = 'delivered';
    Object.assign(next, { state: 'delivered', deliveredAt: now });
    if (endpoint?.failingSince != null) tx.update(endpointRef(scope, endpoint.endpointId), { failingSince: null });
  } else if (attempt.error === 'gone') {
    outcome = 'failed';
    effects.failures.push('endpoint_gone');
    Object.assign(next, { state: 'failed', failedAt: now, failure: 'endpoint_gone' });
    if (disable === 'gone') {
      effects.disabled.push({ reason: 'gone', auditEventId: disableEndpointForDelivery(tx, scope, directory!, endpoint!, 'gone', `HTTP 410 Gone answered delivery ${deliveryId}, attempt ${attempt.attempt}.`, now) });
    }
  } else {
    let endpointDisabled = Boolean(endpoint?.disabled);
    if (endpoint && !endpoint.disabled) {
      const failingSince = endpoint.failingSince ?? attempt.at;
      if (disable === 'failing') {
        const since = new Date(failingSince).toISOString();
        effects.disabled.push({ reason: 'failing', auditEventId: disableEndpointForDelivery(tx, scope, directory!, endpoint, 'failing', `Every delivery attempt failed since ${since}.`, now) });
        endpointDisabled = true;
      } else if (endpoint.failingSince == null) {
        tx.update(endpointRef(scope, endpoint.endpointId), { failingSince });
      }
    }
    const retryAt = now + retryDelayAfter(policy, current, attempt.attempt) * 1000;
    const exhausted = attempt.attempt >= policy.maxAttempts || retryAt >= next.firstAttemptAt! + RETRY_WINDOW_MS;
    if (exhausted || endpointDisabled) {
      const failure: DeliveryFailure = exhausted ? 'retries_exhausted' : 'endpoint_disabled';
      outcome = 'failed';
      effects.failures.push(failure);
      Object.assign(next, { state: 'failed', failedAt: now, failure });
    } else {
      outcome = 'retrying';
      next.nextRetryAt = retryAt;
    }
  }
  tx.set(deliveryRef(scope, deliveryId), next);
  return { outcome, nextRetryAt: next.nextRetryAt };
}
