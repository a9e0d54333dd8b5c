import type { EnvScope } from '../store/scope';
import type { WebhookEventRecord } from './eventModel';
import { webhookEventId } from './eventIds';
import { outboxRecord } from './outbox';

/**
 * Customer lifecycle events, each written in the transaction that made the change and keyed by
 * that change's audit entry (so its id is derived, like an entitlement event's). Their data
 * names customers by their `cdcust_…` ids only: no identifier, email or trait of the person.
 */

/**
 * `customer.merged`: `mergedCustomerIds` were merged into `serviceCustomerId` (their identities
 * and grants moved; they now point at it). The entitlement changes of the merge follow as the
 * surviving customer's own events; the merged customers' keys vanish without events of their own.
 */
export function customerMergedEvent(scope: EnvScope, merge: { canonicalCustomerId: string; mergedCustomerIds: readonly string[]; auditEventId: string; at: number }): WebhookEventRecord {
  return outboxRecord(scope, webhookEventId(scope, `audit/${merge.auditEventId}`), 'customer.merged', merge.at, {
    serviceCustomerId: merge.canonicalCustomerId,
    mergedCustomerIds: [...merge.mergedCustomerIds],
    cause: { rail: 'manual', auditEventId: merge.auditEventId },
  });
}

/** `customer.erased`: the customer's personal data is gone (its grants and rail records are kept). */
export function customerErasedEvent(scope: EnvScope, erasure: { customerId: string; auditEventId: string; at: number }): WebhookEventRecord {
  return outboxRecord(scope, webhookEventId(scope, `audit/${erasure.auditEventId}`), 'customer.erased', erasure.at, {
    serviceCustomerId: erasure.customerId,
    cause: { rail: 'manual', auditEventId: erasure.auditEventId },
  });
}

/**
 * `customer.subscription_transferred`: a rail subscription (its record and grants) moved from
 * `fromCustomerId` to `serviceCustomerId` on a verified purchase (the project's transfer setting,
 * or an erased owner: identity/transferPolicy.ts). The entitlement changes of both sides follow as
 * their own events.
 */
export function subscriptionTransferredEvent(
  scope: EnvScope,
  transfer: { toCustomerId: string; fromCustomerId: string; rail: string; subscriptionId: string; reason: string; auditEventId: string; at: number },
): WebhookEventRecord {
  return outboxRecord(scope, webhookEventId(scope, `audit/${transfer.auditEventId}`), 'customer.subscription_transferred', transfer.at, {
    serviceCustomerId: transfer.toCustomerId,
    fromCustomerId: transfer.fromCustomerId,
    rail: transfer.rail,
    subscriptionId: transfer.subscriptionId,
    reason: transfer.reason,
    cause: { rail: transfer.rail, auditEventId: transfer.auditEventId },
  });
}
