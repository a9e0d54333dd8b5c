import type { JWSRenewalInfoDecodedPayload, JWSTransactionDecodedPayload } from '@apple/app-store-server-library';
import type { SubscriptionSnapshot, SubscriptionState } from '../model';

/**
 * The subscription as one verified App Store transaction (with its renewal info and, for a
 * notification, the notification's type and status) shows it. Access always follows the
 * signed dates: `expiresDate`, extended to `gracePeriodExpiresDate` during a billing grace
 * period; a `revocationDate` (refund, family-sharing revoke) takes access back.
 */
export interface AppleEvidence {
  transaction: JWSTransactionDecodedPayload;
  renewal: JWSRenewalInfoDecodedPayload | null;
  /** Notification type and subtype (absent for a purchase sync). */
  notificationType?: string;
  subtype?: string;
  /** `data.status` of a notification: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked. */
  status?: number;
  /** The time the evidence is about (the signed date). */
  at: number;
}

const STATUS_STATES: Record<number, SubscriptionState> = { 1: 'active', 2: 'expired', 3: 'billing_retry', 4: 'grace', 5: 'revoked' };

export function appleSnapshot(evidence: AppleEvidence): SubscriptionSnapshot {
  const { transaction: txn, renewal, at } = evidence;
  const expires = txn.expiresDate ?? null;
  const grace = renewal?.gracePeriodExpiresDate ?? null;
  const state = appleState(evidence);
  const revoked = state === 'refunded' || state === 'revoked';
  let accessUntil: number | null;
  if (revoked) accessUntil = txn.revocationDate ?? at;
  else if (state === 'grace') accessUntil = Math.max(grace ?? 0, expires ?? 0) || at;
  else if (state === 'active') accessUntil = expires; // null: a non-expiring purchase (lifetime)
  else accessUntil = expires ?? at;
  return {
    subscriptionId: txn.originalTransactionId ?? txn.transactionId ?? '',
    productIds: txn.productId ? [txn.productId] : [],
    state,
    periodStart: txn.purchaseDate ?? null,
    periodEnd: expires,
    accessUntil,
    revokedAt: revoked ? (txn.revocationDate ?? at) : null,
    willRenew: renewal ? renewal.autoRenewStatus === 1 : null,
  };
}

function appleState(evidence: AppleEvidence): SubscriptionState {
  const { transaction: txn, renewal, notificationType, status, at } = evidence;
  if (txn.revocationDate !== undefined && txn.revocationDate !== null) {
    if (notificationType === 'REFUND') return 'refunded';
    if (notificationType === 'REVOKE' || txn.inAppOwnershipType === 'FAMILY_SHARED') return 'revoked';
    return 'refunded';
  }
  if (notificationType === 'REVOKE') return 'revoked';
  if (status !== undefined && STATUS_STATES[status]) {
    const byStatus = STATUS_STATES[status];
    // A refund reversal or extension re-signs an active transaction; trust the dates for lapsed ones.
    if (byStatus !== 'revoked') return byStatus;
  }
  const expires = txn.expiresDate;
  if (expires === undefined || expires === null) return 'active';
  if (expires > at) return 'active';
  const grace = renewal?.gracePeriodExpiresDate;
  if (grace !== undefined && grace !== null && grace > at) return 'grace';
  if (renewal?.isInBillingRetryPeriod) return 'billing_retry';
  return 'expired';
}

/** The audit event type: `DID_FAIL_TO_RENEW.GRACE_PERIOD`, `SUBSCRIBED.INITIAL_BUY`, … */
export function appleEventName(notificationType: string | undefined, subtype: string | undefined): string {
  if (!notificationType) return 'purchase_sync';
  return subtype ? `${notificationType}.${subtype}` : notificationType;
}
