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
