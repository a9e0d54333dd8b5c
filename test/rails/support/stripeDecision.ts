import { decideRailEvent, type RailDecision } from '../../../functions/src/rails/decision';
import type { RailCustomer } from '../../../functions/src/rails/customers';
import type { EnvScope } from '../../../functions/src/store/scope';
import type { RailsWorld } from './railsWorld';
import { stripeIds } from './stripeFake';

/**
 * A decision about an active `prod_pro` Stripe subscription, called as the Stripe handler calls
 * `decideRailEvent`, for tests that hold the customer or the scope in a chosen state.
 */
export function decideStripeSubscription(
  world: RailsWorld,
  input: { scope: EnvScope; customer: RailCustomer | null; subscriptionId: string; now: number; claimant?: () => string | null },
): Promise<RailDecision> {
  const { scope, customer, subscriptionId, now } = input;
  return decideRailEvent({
    scope,
    tasks: world.service.tasks,
    rail: 'stripe',
    eventId: stripeIds.event(),
    eventType: 'stripe.customer.subscription.created',
    subscriptionId,
    eventAt: now,
    receivedAt: now,
    now,
    reconciledWithProvider: false,
    customer,
    ...(input.claimant ? { claimant: input.claimant } : {}),
    snapshot: () => ({ subscriptionId, productIds: ['prod_pro'], state: 'active', periodStart: now, periodEnd: now + 86_400_000, accessUntil: now + 86_400_000, revokedAt: null, willRenew: true }),
    noSnapshotReason: 'unused',
  });
}
