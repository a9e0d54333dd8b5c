import type { CatalogRail } from '../wire/vocabulary';
import { storedRecord } from '../store/converters';

/**
 * Subscription records, one per rail subscription, under the partition the verified payload
 * derived: `subscriptions/{rail}:{subscriptionId}`. `subscriptionId` is the rail's own stable id
 * (App Store originalTransactionId, Stripe `sub_…`, SHA-256 of the Play purchase token).
 *
 * A record is only ever rewritten inside the transaction that also rewrites the customer's
 * grants and projection and appends the audit entry of the decision.
 */
export type SubscriptionState =
  | 'active' // paid, inside the period
  | 'grace' // renewal failed; access kept until the grace period ends
  | 'billing_retry' // renewal failed; no access while the rail retries the charge
  | 'paused'
  | 'pending' // payment not completed yet
  | 'expired'
  | 'refunded' // access taken back: refund, or a lost dispute
  | 'revoked'; // access taken back: family sharing withdrawn, Play revocation

/** States in which the customer has access (until `accessUntil`). */
export const ACCESS_STATES: ReadonlySet<SubscriptionState> = new Set(['active', 'grace']);

/** The rail-neutral view of a subscription, built from a verified payload or a provider read. */
export interface SubscriptionSnapshot {
  subscriptionId: string;
  /** Products the subscription currently pays for (first one is the primary). */
  productIds: string[];
  state: SubscriptionState;
  periodStart: number | null;
  periodEnd: number | null;
  /** Access ends at this instant (ms); null is lifetime (a non-expiring purchase). */
  accessUntil: number | null;
  /** Set for `refunded` / `revoked`: the grants are revoked at this instant. */
  revokedAt: number | null;
  /** Whether the rail will renew it (null: not a renewing product or unknown). */
  willRenew: boolean | null;
}

export interface SubscriptionRecord extends SubscriptionSnapshot {
  rail: CatalogRail;
  /** The primary product id (spec: subscription records keep the product id). */
  productId: string;
  /** Null while no customer could be bound (a family-shared purchase whose owner is unknown). */
  customerId: string | null;
  /** Entitlement keys the last decision granted (a product change ends the keys it no longer grants). */
  entitlementKeys: string[];
  lastEventId: string;
  /** The rail's time of the last applied event (signedDate, `created`, read time); older events never apply. */
  lastEventAt: number;
  /** When the state was last re-read from the provider (Stripe, Play); a slower, older read never applies. */
  lastReadAt: number | null;
  createdAt: number;
  updatedAt: number;
  /** Rail-specific facts (ids needed to match later events). */
  apple?: { originalTransactionId: string; lastTransactionId: string; ownership: string; appAccountToken: string | null };
  stripe?: { customerId: string | null; refund: { at: number; chargeId: string; reason: 'refund' | 'dispute_lost' } | null; lastPaidAt: number | null };
  google?: {
    packageName: string;
    testPurchase: boolean;
    linkedTokenHash: string | null;
    /** A voided purchase or a revocation: access stays taken back whatever later reads show. */
    takenBack: { at: number; as: 'refunded' | 'revoked' } | null;
  };
}

export const SUBSCRIPTIONS = 'subscriptions';

export const subscriptionDocId = (rail: CatalogRail, subscriptionId: string): string => `${rail}:${subscriptionId}`;

/** The audit `eventType` of a rail decision: `apple.DID_RENEW`, `stripe.invoice.paid`, … */
export const railEventType = (rail: CatalogRail, type: string): string => `${rail}.${type}`;

/** The audit event type of a subscription moving between customers (rails/decision.ts). */
export const SUBSCRIPTION_TRANSFERRED_EVENT_TYPE = 'customer.subscription_transferred';

/** Why a subscription moved: the project's transfer setting, or its owner was erased. */
export type TransferReason = 'transfer_setting' | 'owner_erased';

export const subscriptionConverter = storedRecord<SubscriptionRecord>();
