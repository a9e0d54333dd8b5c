import type { SubscriptionSnapshot, SubscriptionState } from '../model';
import type { PlaySubscription } from './playApi';

/**
 * A Play subscription (as `subscriptionsv2.get` returns it) in the rail-neutral shape. Access
 * follows the line items' `expiryTime`; a canceled subscription keeps access until then; a
 * voided purchase or a revocation takes it back at once.
 */
const PLAY_STATES: Record<string, SubscriptionState> = {
  SUBSCRIPTION_STATE_ACTIVE: 'active',
  SUBSCRIPTION_STATE_CANCELED: 'active',
  SUBSCRIPTION_STATE_IN_GRACE_PERIOD: 'grace',
  SUBSCRIPTION_STATE_ON_HOLD: 'billing_retry',
  SUBSCRIPTION_STATE_PAUSED: 'paused',
  SUBSCRIPTION_STATE_PENDING: 'pending',
  SUBSCRIPTION_STATE_EXPIRED: 'expired',
  SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED: 'expired',
};

const time = (value: string | null | undefined): number | null => {
  if (!value) return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
};

export function playSnapshot(subscriptionId: string, play: PlaySubscription, readAt: number, takenBackAt: number | null = null, takenBackAs: 'refunded' | 'revoked' = 'refunded'): SubscriptionSnapshot {
  const items = play.lineItems ?? [];
  const expiries = items.map((item) => time(item.expiryTime)).filter((v): v is number => v !== null);
  const expiry = expiries.length ? Math.max(...expiries) : null;
  let state: SubscriptionState = PLAY_STATES[play.subscriptionState ?? ''] ?? 'pending';
  if (state === 'active' && expiry !== null && expiry <= readAt) state = 'expired';
  let accessUntil: number | null = state === 'active' || state === 'grace' ? expiry : Math.min(expiry ?? readAt, readAt);
  let revokedAt: number | null = null;
  if (takenBackAt !== null) {
    state = takenBackAs;
    revokedAt = takenBackAt;
    accessUntil = takenBackAt;
  }
  return {
    subscriptionId,
    productIds: [...new Set(items.map((item) => item.productId).filter((id): id is string => Boolean(id)))],
    state,
    periodStart: time(play.startTime),
    periodEnd: expiry,
    accessUntil,
    revokedAt,
    willRenew: items.some((item) => item.autoRenewingPlan?.autoRenewEnabled === true) && play.subscriptionState === 'SUBSCRIPTION_STATE_ACTIVE',
  };
}
