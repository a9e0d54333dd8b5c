import type Stripe from 'stripe';
import { normaliseCurrency, type RevenueFact } from '../../store/rollups/revenueFacts';
import { fieldNumber, fieldObject, idOf, paymentRefsOfCharge, paymentRefsOfDispute, paymentRefsOfInvoice, type StripeObject } from './objects';

/**
 * The money a Stripe event shows, for the revenue report: a paid invoice (`amount_paid`,
 * `currency`, its first line's service period), the refunded part of a charge (this event's
 * increase of `amount_refunded`, so successive partial refunds add up), a lost dispute's amount.
 * Stripe amounts are already in minor units.
 */
export function stripeRevenue(event: Stripe.Event, paidEventTypes: ReadonlySet<string>): RevenueFact | null {
  const object = event.data.object as unknown as StripeObject;
  const at = event.created * 1000;
  const currency = normaliseCurrency(object.currency);
  if (!currency) return null;
  if (paidEventTypes.has(event.type)) {
    const amount = fieldNumber(object.amount_paid);
    const invoiceId = idOf(object.id);
    if (amount === null || amount <= 0 || !invoiceId) return null;
    const paidAt = (fieldNumber(fieldObject(object.status_transitions)?.paid_at) ?? event.created) * 1000;
    return { kind: 'payment', rail: 'stripe', paymentId: invoiceId, amount, currency, at: paidAt, period: invoicePeriod(object), aliases: paymentRefsOfInvoice(object) };
  }
  if (event.type === 'charge.refunded') {
    const total = fieldNumber(object.amount_refunded);
    const previous = fieldNumber(fieldObject(event.data.previous_attributes)?.amount_refunded) ?? 0;
    const chargeId = idOf(object.id);
    if (total === null || total - previous <= 0 || !chargeId) return null;
    return { kind: 'refund', rail: 'stripe', refundId: `${chargeId}:${total}`, paymentIds: paymentRefsOfCharge(object), amount: total - previous, currency, at };
  }
  if (event.type === 'charge.dispute.closed' && object.status === 'lost') {
    const amount = fieldNumber(object.amount);
    const disputeId = idOf(object.id);
    if (amount === null || amount <= 0 || !disputeId) return null;
    return { kind: 'refund', rail: 'stripe', refundId: disputeId, paymentIds: paymentRefsOfDispute(object), amount, currency, at };
  }
  return null;
}

/** The service period of a subscription invoice's first line (Unix ms), if it has one. */
function invoicePeriod(invoice: StripeObject): { start: number; end: number } | null {
  const lines = fieldObject(invoice.lines)?.data;
  const first = Array.isArray(lines) ? fieldObject(lines[0]) : null;
  const period = fieldObject(first?.period);
  const start = fieldNumber(period?.start);
  const end = fieldNumber(period?.end);
  if (start === null || end === null || end <= start) return null;
  return { start: start * 1000, end: end * 1000 };
}
