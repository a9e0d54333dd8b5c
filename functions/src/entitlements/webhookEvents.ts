import { toUnixSeconds } from '../clock';
import { MERGE_EVENT_TYPE, type EntitlementChange } from './changeModel';
import type { PublicEntitlement } from './model';
import type { WebhookEventRecord } from '../webhooks/eventModel';
import { webhookEventId } from '../webhooks/eventIds';
import type { WebhookEventType } from '../webhooks/model';
import { outboxRecord } from '../webhooks/outbox';

/**
 * Entitlement events are built from the change feed: the one writer (entitlements/writer.ts)
 * turns each change record it appends into at most one event, in the same transaction.
 */
export type EntitlementEventType = Extract<WebhookEventType, `entitlement.${string}`>;

/**
 * The type of a change's event, or null when the change is not one a receiver is told about.
 * `knownActiveBefore`: the key was active as far as events have told, i.e. present and either
 * not yet past its end or past it with its expiry not recorded yet (the expiry worker runs
 * every minute, so a renewal can land a little after the old end and is still a renewal).
 *
 * - the key is active after it: `granted` when it was not known active before, `renewed` when
 *   its end moved later (lifetime is latest); otherwise (same or earlier end, another source:
 *   a product change, a manual grant revoked under a rail grant) no event;
 * - the expiry worker's record: `expired`;
 * - the key ended (gone, or present but over): `refunded` / `revoked` when the cause took access
 *   back that way (a manual revoke, a rail refund or revocation), whether or not it was active;
 *   no event on a merge's side that loses the key (`customer.merged` tells it); otherwise
 *   `expired` when it was known active (a rail ended the access), no event when it was not.
 */
export function classifyEntitlementChange(change: Pick<EntitlementChange, 'before' | 'after' | 'cause'>, knownActiveBefore: boolean): EntitlementEventType | null {
  const { before, after, cause } = change;
  if (cause.kind === 'expiry') return 'entitlement.expired';
  if (after?.isActive) {
    if (!knownActiveBefore || !before) return 'entitlement.granted';
    return endsLater(after.validUntil, before.validUntil) ? 'entitlement.renewed' : null;
  }
  if (cause.takenBack === 'refunded') return 'entitlement.refunded';
  if (cause.takenBack === 'revoked') return 'entitlement.revoked';
  if (cause.eventType === MERGE_EVENT_TYPE) return null;
  return knownActiveBefore ? 'entitlement.expired' : null;
}

/** Whether end `a` is later than end `b` (null: lifetime, the latest). */
const endsLater = (a: number | null, b: number | null): boolean => (a === null ? b !== null : b !== null && a > b);

/** The event of one change record (issue 13 §2). Its id derives from the change id. */
export function entitlementEventRecord(change: EntitlementChange, type: EntitlementEventType): WebhookEventRecord {
  const entitlement = change.after ?? endedShape(change.before!, change.changedAt);
  return outboxRecord(
    change,
    webhookEventId(change, `entitlementChange/${change.changeId}`),
    type,
    change.changedAt,
    {
      serviceCustomerId: change.customerId,
      sequence: change.sequence,
      entitlement,
      previous: change.before,
      cause: { rail: change.cause.rail, auditEventId: change.cause.auditEventId },
    },
    { changeId: change.changeId },
  );
}

/**
 * A key that vanished from the projection (its grants revoked or refunded) as it ended: the
 * last public shape, inactive, ending at the change (as a revoke's own response reports it).
 */
function endedShape(before: PublicEntitlement, changedAt: number): PublicEntitlement {
  const at = toUnixSeconds(changedAt);
  return { ...before, isActive: false, validUntil: before.validUntil === null ? at : Math.min(before.validUntil, at), updatedAt: at };
}
