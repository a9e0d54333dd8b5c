import { createHash } from 'node:crypto';
import { appendAudit, auditRef } from '../audit/append';
import type { CatalogRail } from '../entitlements/catalog';
import { getAllInTx } from '../entitlements/projection';
import type { EnvScope } from '../store/scope';
import { railEventType } from './model';

/**
 * A notification that failed verification is audited as `rejected` (signatureVerified false)
 * in the partition it claimed. Its id is derived from the body's hash, never from the event id
 * it claims: a forged body must not occupy the id of a real event (which would then be taken
 * for a duplicate), and re-deliveries of one forged body collapse to one entry.
 */
export interface Rejection {
  scope: EnvScope;
  rail: CatalogRail;
  rawBody: Buffer;
  reason: string;
  /** The event id the body claims (unverified; kept for the operator, never used as a key). */
  claimedEventId: string | null;
  receivedAt: number;
  now: number;
}

export const rejectedEventId = (rail: CatalogRail, rawBody: Buffer): string =>
  `rejected_${rail}_${createHash('sha256').update(rawBody).digest('hex').slice(0, 40)}`;

export async function auditRejection(rejection: Rejection): Promise<string> {
  const { scope, rail } = rejection;
  const eventId = rejectedEventId(rail, rejection.rawBody);
  await scope.runTransaction(async (tx) => {
    const [existing] = await getAllInTx(tx, scope, [auditRef(scope, eventId)]);
    if (existing.exists) return;
    appendAudit(tx, scope, {
      eventId,
      rail,
      eventType: railEventType(rail, 'notification'),
      customerId: null,
      subscriptionId: null,
      decision: 'rejected',
      reason: rejection.reason,
      fromState: null,
      toState: null,
      signatureVerified: false,
      reconciledWithProvider: false,
      rawEventReceivedAt: rejection.receivedAt,
      processedAt: rejection.now,
      details: rejection.claimedEventId ? { claimedEventId: rejection.claimedEventId.slice(0, 200) } : {},
    });
  });
  return eventId;
}
