import type { GrantRecord } from '../entitlements/model';
import { isActiveAt } from '../entitlements/publicShape';
import type { StripeCustomerView } from './stripeSubscriptions';

/**
 * The rail-owned gate for one asserted entitlement key of a migrated user. Pure: the caller
 * brings the customer's recorded grants and, when the row names a Stripe customer, Stripe's view.
 *
 * 1. A rail already grants the key (a recorded, unrevoked, unexpired rail grant): rail-backed.
 * 2. The row's Stripe customer: unreadable → undetermined (no grant; a re-run decides);
 *    a live subscription (active, trialing, past_due) → rail-backed; only ended ones → lapsed.
 *    Subscriptions count when one of their products unlocks the key in the catalog; when the
 *    catalog maps no Stripe product to the key, every subscription counts.
 * 3. A recorded rail grant of the key that has ended: lapsed.
 * 4. Otherwise no rail stands behind the customer: a manual (migration) grant.
 */
export type GateOutcome = 'rail_backed' | 'lapsed' | 'undetermined' | 'grant';

export interface GateDecision {
  outcome: GateOutcome;
  reason: string;
}

export const LIVE_STRIPE_STATUSES: ReadonlySet<string> = new Set(['active', 'trialing', 'past_due']);

export function decideGate(
  key: string,
  now: number,
  grants: readonly GrantRecord[],
  stripe: StripeCustomerView | null,
  stripeProductsOfKey: ReadonlySet<string>,
): GateDecision {
  const railGrants = grants.filter((g) => g.entitlementKey === key && g.source.rail !== 'manual');
  const activeRail = railGrants.find((g) => g.revokedAt === null && isActiveAt(g.validUntil, now));
  if (activeRail) return { outcome: 'rail_backed', reason: `${activeRail.source.rail}_grant_active` };

  if (stripe) {
    if (!stripe.readable) return { outcome: 'undetermined', reason: stripe.reason };
    const relevant =
      stripeProductsOfKey.size === 0 ? stripe.subscriptions : stripe.subscriptions.filter((s) => s.productRefs.some((ref) => stripeProductsOfKey.has(ref)));
    if (relevant.some((s) => LIVE_STRIPE_STATUSES.has(s.status))) return { outcome: 'rail_backed', reason: 'stripe_subscription_live' };
    if (relevant.length > 0) return { outcome: 'lapsed', reason: 'stripe_subscription_lapsed' };
  }

  if (railGrants.length > 0) return { outcome: 'lapsed', reason: `${railGrants[0].source.rail}_grant_ended` };
  return { outcome: 'grant', reason: 'no_rail_behind_customer' };
}
