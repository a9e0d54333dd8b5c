import type { SubscriptionRecord, SubscriptionSnapshot, SubscriptionState } from '../model';
import { fieldNumber, periodOfSubscription, productIdsOfSubscription, type StripeObject } from './objects';

/**
 * A Stripe subscription (as the API returns it now, or as the event carried it) in the
 * rail-neutral shape. A full refund or a lost dispute takes access back even though Stripe
 * keeps the subscription `active`; a later paid invoice gives it back.
 */
export type StripeOverlay = NonNullable<SubscriptionRecord['stripe']>;

const STATUS_STATES: Record<string, SubscriptionState> = {
  active: 'active',
  trialing: 'active',
  past_due: 'billing_retry',
  unpaid: 'billing_retry',
  incomplete: 'pending',
  incomplete_expired: 'expired',
  canceled: 'expired',
  paused: 'paused',
};

const ms = (seconds: number | null): number | null => (seconds === null ? null : seconds * 1000);

export function stripeSnapshot(subscription: StripeObject, overlay: StripeOverlay | null, at: number): SubscriptionSnapshot {
  const status = typeof subscription.status === 'string' ? subscription.status : 'incomplete';
  const period = periodOfSubscription(subscription);
  const cancelAt = ms(fieldNumber(subscription.cancel_at));
  let state: SubscriptionState = STATUS_STATES[status] ?? 'pending';
  let accessUntil: number | null;
  if (state === 'active') accessUntil = Math.min(ms(period.end) ?? at, cancelAt ?? Number.POSITIVE_INFINITY);
  else if (state === 'billing_retry') accessUntil = ms(period.start) ?? at;
  else if (status === 'canceled') accessUntil = ms(fieldNumber(subscription.ended_at)) ?? ms(fieldNumber(subscription.canceled_at)) ?? at;
  else accessUntil = at;
  let revokedAt: number | null = null;
  const refund = overlay?.refund ?? null;
  if (refund && !(overlay?.lastPaidAt && overlay.lastPaidAt > refund.at)) {
    state = refund.reason === 'dispute_lost' ? 'revoked' : 'refunded';
    revokedAt = refund.at;
    accessUntil = refund.at;
  }
  return {
    subscriptionId: String(subscription.id),
    productIds: productIdsOfSubscription(subscription),
    state,
    periodStart: ms(period.start),
    periodEnd: ms(period.end),
    accessUntil,
    revokedAt,
    willRenew: (status === 'active' || status === 'trialing') && subscription.cancel_at_period_end !== true && cancelAt === null,
  };
}
