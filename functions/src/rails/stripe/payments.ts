import type { Transaction } from 'firebase-admin/firestore';
import type { EnvScope } from '../../store/scope';
import { storedRecord } from '../../store/converters';

/**
 * `stripePayments/{in_…|pi_…|ch_…}` → the subscription a payment paid for, recorded from
 * invoices, so a refund or a dispute (which name a charge or payment intent, not a
 * subscription) finds the subscription by direct reads.
 */
export const STRIPE_PAYMENTS = 'stripePayments';

interface PaymentLink {
  subscriptionId: string;
  updatedAt: number;
}

const paymentLinkConverter = storedRecord<PaymentLink>();
const paymentLinkRef = (scope: EnvScope, ref: string) => scope.doc(STRIPE_PAYMENTS, ref).withConverter(paymentLinkConverter);

const SAFE_REF = /^[A-Za-z0-9_]{3,200}$/;

export function recordPaymentLinks(tx: Transaction, scope: EnvScope, refs: string[], subscriptionId: string, now: number): void {
  for (const ref of refs) {
    if (!SAFE_REF.test(ref)) continue;
    const link: PaymentLink = { subscriptionId, updatedAt: now };
    tx.set(paymentLinkRef(scope, ref), link);
  }
}

/** The subscription of the first reference that is known. */
export async function subscriptionForPayment(scope: EnvScope, refs: string[]): Promise<string | null> {
  const usable = refs.filter((ref) => SAFE_REF.test(ref));
  if (usable.length === 0) return null;
  const snapshots = await scope.getAll(...usable.map((ref) => paymentLinkRef(scope, ref)));
  return snapshots.find((snapshot) => snapshot.exists)?.data()?.subscriptionId ?? null;
}
