/**
 * Field access for Stripe objects as webhooks deliver them. An endpoint's events are rendered
 * in its own API version, so both the older shapes (`invoice.subscription`,
 * `subscription.current_period_end`, `charge.invoice`) and the newer ones
 * (`invoice.parent.subscription_details`, item-level periods, `invoice.payments`) are read.
 */
export type StripeObject = Record<string, unknown>;

const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const obj = (value: unknown): StripeObject | null => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as StripeObject) : null);
const list = (value: unknown): StripeObject[] => {
  const data = obj(value)?.data;
  return Array.isArray(data) ? data.flatMap((item) => (obj(item) ? [item as StripeObject] : [])) : [];
};

/** An id field that may be expanded into an object. */
export const idOf = (value: unknown): string | null => str(value) ?? str(obj(value)?.id);

export const metadataOf = (object: StripeObject): Record<string, string> => {
  const metadata = obj(object.metadata) ?? {};
  return Object.fromEntries(Object.entries(metadata).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v]] : [])));
};

export function subscriptionIdOfInvoice(invoice: StripeObject): string | null {
  return idOf(invoice.subscription) ?? idOf(obj(obj(invoice.parent)?.subscription_details)?.subscription);
}

/** Every payment reference an invoice carries (old: `charge`, `payment_intent`; new: `payments`). */
export function paymentRefsOfInvoice(invoice: StripeObject): string[] {
  const refs = [idOf(invoice.id), idOf(invoice.charge), idOf(invoice.payment_intent)];
  for (const payment of list(invoice.payments)) {
    const inner = obj(payment.payment);
    refs.push(idOf(inner?.payment_intent), idOf(inner?.charge));
  }
  return [...new Set(refs.filter((ref): ref is string => ref !== null))];
}

/** References a charge (or a dispute) can be matched on, most specific first. */
export function paymentRefsOfCharge(charge: StripeObject): string[] {
  const refs = [idOf(charge.id), idOf(charge.payment_intent), idOf(charge.invoice)];
  return [...new Set(refs.filter((ref): ref is string => ref !== null))];
}

export function paymentRefsOfDispute(dispute: StripeObject): string[] {
  const refs = [idOf(dispute.charge), idOf(dispute.payment_intent)];
  return [...new Set(refs.filter((ref): ref is string => ref !== null))];
}

export function subscriptionItems(subscription: StripeObject): StripeObject[] {
  return list(subscription.items);
}

export function productIdsOfSubscription(subscription: StripeObject): string[] {
  const ids = subscriptionItems(subscription).map((item) => idOf(obj(item.price)?.product) ?? idOf(obj(item.plan)?.product));
  return [...new Set(ids.filter((id): id is string => id !== null))];
}

/** Period bounds in Unix seconds: subscription-level (older API versions) or the items' (newer). */
export function periodOfSubscription(subscription: StripeObject): { start: number | null; end: number | null } {
  const items = subscriptionItems(subscription);
  const ends = [num(subscription.current_period_end), ...items.map((item) => num(item.current_period_end))].filter((v): v is number => v !== null);
  const starts = [num(subscription.current_period_start), ...items.map((item) => num(item.current_period_start))].filter((v): v is number => v !== null);
  return { start: starts.length ? Math.min(...starts) : null, end: ends.length ? Math.max(...ends) : null };
}

export const fieldNumber = num;
export const fieldString = str;
export const fieldObject = obj;
