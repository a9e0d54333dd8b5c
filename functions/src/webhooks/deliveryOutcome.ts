import type { Transaction } from 'firebase-admin/firestore';
import type { Clock } from '../clock';
import type { EnvScope } from '../store/scope';
import { readGroupsInTx } from '../store/converters';
import { deliveryRef, MAX_KEPT_ATTEMPTS, type DeliveryAttempt, type DeliveryFailure, type DeliveryRecord } from './deliveryModel';
import { DISABLE_AFTER_FAILING_MS, RETRY_WINDOW_MS, type DeliveryPolicy } from './deliveryPolicy';
import { readForDirectory, writeDirectory } from './directory';
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
    const transitions = made.map((m, i) => endpointTransition(m, deliveries[i].data(), endpoints[i].data(), now));
    // An answer that changes its endpoint (disabled, failing or not) changes the partition's directory: read it (before any write) only then.
    const directory = transitions.some((t) => t !== null) ? await readForDirectory(tx, scope) : null;
    const changed: WebhookEndpointRecord[] = [];
    const recorded = made.map((m, i) => recordOne(tx, scope, policy, m, deliveries[i].data(), endpoints[i].data(), transitions[i], now, effects[i], changed));
    if (directory) writeDirectory(tx, scope, directory, { changed }, now);
    return recorded;
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

/** What recording this answer does to its endpoint: disables it (a 410, or 3 days of failures), or starts or ends its run of failures. */
type EndpointTransition = { disable: 'gone' | 'failing'; failingSince: number | null } | { failingSince: number | null } | null;

function endpointTransition(made: MadeAttempt, current: DeliveryRecord | undefined, endpoint: WebhookEndpointRecord | undefined, now: number): EndpointTransition {
  const { attempt } = made;
  if (!isClaimed(made, current) || !endpoint) return null;
  if (attempt.error === null) return endpoint.failingSince != null ? { failingSince: null } : null;
  if (endpoint.disabled) return null;
  if (attempt.error === 'gone') return { disable: 'gone', failingSince: endpoint.failingSince ?? null };
  const failingSince = endpoint.failingSince ?? attempt.at;
  if (now - failingSince >= DISABLE_AFTER_FAILING_MS) return { disable: 'failing', failingSince };
  return endpoint.failingSince == null ? { failingSince } : null;
}

function recordOne(
  tx: Transaction,
  scope: EnvScope,
  policy: DeliveryPolicy,
  made: MadeAttempt,
  current: DeliveryRecord | undefined,
  endpoint: WebhookEndpointRecord | undefined,
  transition: EndpointTransition,
  now: number,
  effects: Effects,
  changed: WebhookEndpointRecord[],
): RecordResult {
  const { deliveryId, attempt } = made;
  if (!isClaimed(made, current)) return 'raced';
  const next: DeliveryRecord = { ...current, attempts: [...current.attempts, attempt].slice(-MAX_KEPT_ATTEMPTS), inFlight: null, nextRetryAt: null, updatedAt: now };
  let endpointDisabled = Boolean(endpoint?.disabled);
  if (endpoint && transition && 'disable' in transition) {
    const note =
      transition.disable === 'gone'
        ? `HTTP 410 Gone answered delivery ${deliveryId}, attempt ${attempt.attempt}.`
        : `Every delivery attempt failed since ${new Date(transition.failingSince!).toISOString()}.`;
    const disabled = disableEndpointForDelivery(tx, scope, endpoint, transition.disable, note, now);
    effects.disabled.push({ reason: transition.disable, auditEventId: disabled.auditEventId });
    changed.push(disabled.record);
    endpointDisabled = true;
  } else if (endpoint && transition) {
    tx.update(endpointRef(scope, endpoint.endpointId), { failingSince: transition.failingSince });
    changed.push({ ...endpoint, failingSince: transition.failingSince });
  }
  let outcome: Recorded['outcome'];
  if (attempt.error === null) {
    outcome = 'delivered';
    Object.assign(next, { state: 'delivered', deliveredAt: now });
  } else if (attempt.error === 'gone') {
    outcome = 'failed';
    effects.failures.push('endpoint_gone');
    Object.assign(next, { state: 'failed', failedAt: now, failure: 'endpoint_gone' });
  } else {
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
