import { minorFromUnitsNanos, normaliseCurrency, type RevenueFact } from '../../store/rollups/revenueFacts';
import type { DeveloperNotification } from './pubsub';
import type { PlaySubscription } from './playApi';

/** Notifications that mean an order was just charged: the subscription's current period starts now. */
const CHARGED = new Set(['SUBSCRIPTION_PURCHASED', 'SUBSCRIPTION_RENEWED', 'SUBSCRIPTION_RECOVERED']);

/**
 * The money a Play notification shows, for the revenue report. A purchase, renewal or recovery:
 * the first line item's `latestSuccessfulOrderId` was charged its plan's `recurringPrice` (the
 * price the Play Developer API reports: before tax and without offer discounts) for the period up
 * to its `expiryTime`. A voided purchase refunds its `orderId` by the amount recorded for that
 * order (Play does not say the amount). The claim on the order id counts each once.
 */
export function googleRevenue(type: string, notification: DeveloperNotification, play: PlaySubscription | null, eventAt: number): RevenueFact | null {
  const voided = notification.voidedPurchaseNotification;
  if (voided) {
    const orderId = voided.orderId;
    if (typeof orderId !== 'string' || orderId === '') return null;
    return { kind: 'refund', rail: 'google', refundId: orderId, paymentIds: [orderId], amount: null, currency: null, at: eventAt };
  }
  if (!play || !CHARGED.has(type)) return null;
  const item = (play.lineItems ?? [])[0];
  const orderId = item?.latestSuccessfulOrderId ?? null;
  const price = item?.autoRenewingPlan?.recurringPrice;
  const currency = normaliseCurrency(price?.currencyCode);
  if (!orderId || !price || !currency) return null;
  const amount = minorFromUnitsNanos(price.units, price.nanos, currency);
  if (amount === null || amount <= 0) return null;
  const end = item?.expiryTime ? Date.parse(item.expiryTime) : NaN;
  return { kind: 'payment', rail: 'google', paymentId: orderId, amount, currency, at: eventAt, period: Number.isFinite(end) && end > eventAt ? { start: eventAt, end } : null };
}
