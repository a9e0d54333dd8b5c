import type { DocumentReference, DocumentSnapshot, Transaction } from 'firebase-admin/firestore';
import type { EnvScope } from '../scope';
import { METRIC, REVENUE_ROLLUPS, REVENUE_SHARDS } from './model';
import { endHourOf, hourOf } from './periods';
import { monthlyAmount, type RevenueFact } from './revenueFacts';
import { seriesKey, writeRollupDeltas, type RollupDelta } from './rollupWrite';
import { shardOf } from './shards';
import { storedRecord } from '../converters';

/**
 * Revenue rollups, written in the rail decision's transaction (rails/decision.ts):
 *
 * - `revenueClaims/{rail}:{paymentId}` and `revenueClaims/{rail}:refund:{refundId}`: one per
 *   payment and per refund. Created with the first delivery that records it, so a payment seen by
 *   two notifications (Stripe `invoice.paid` and `invoice.payment_succeeded`, an App Store
 *   transaction in a notification and a purchase sync) counts once. A payment claim keeps what a
 *   later refund needs (amount, currency, MRR share, period end).
 * - `reportRevenue` day documents: `gross` and `refunds` per (currency, rail) per hour; and `mrr`
 *   per currency as a difference array (+share when a paid period starts, −share when it ends; a
 *   full refund ends it at the refund), kept in month and year documents too.
 */
const REVENUE_CLAIMS = 'revenueClaims';

interface PaymentClaim {
  rail: string;
  paymentId: string;
  amount: number;
  currency: string;
  at: number;
  monthly: number;
  periodEnd: number | null;
  /** Refunded so far (minor units). */
  refunded: number;
  /** Set when a full refund ended the payment's MRR share early. */
  mrrEndedAt: number | null;
}

interface RefundClaim {
  rail: string;
  refundId: string;
  paymentId: string | null;
  amount: number;
  currency: string;
  at: number;
}

type RevenueClaim = PaymentClaim | RefundClaim;
const revenueClaimConverter = storedRecord<RevenueClaim>();
const isPaymentClaim = (claim: RevenueClaim): claim is PaymentClaim => !('refundId' in claim);
const claimRef = (scope: EnvScope, id: string) => scope.doc(REVENUE_CLAIMS, id).withConverter(revenueClaimConverter);

const claimId = (rail: string, id: string): string => `${rail}:${id}`;
const refundClaimId = (rail: string, id: string): string => `${rail}:refund:${id}`;

/** Document ids are rail ids; anything that cannot name a document is never recorded. */
const usableId = (id: string): boolean => /^[A-Za-z0-9_.:-]{1,300}$/.test(id) && !/^__.*__$/.test(id);

/** The claim documents the transaction reads for `fact` (with its other reads, in one getAll). */
export function revenueClaimRefs(scope: EnvScope, fact: RevenueFact | null | undefined): DocumentReference<RevenueClaim>[] {
  if (!fact) return [];
  if (fact.kind === 'payment') return usableId(fact.paymentId) ? [claimRef(scope, claimId(fact.rail, fact.paymentId))] : [];
  if (!usableId(fact.refundId)) return [];
  return [claimRef(scope, refundClaimId(fact.rail, fact.refundId)), ...fact.paymentIds.filter(usableId).map((id) => claimRef(scope, claimId(fact.rail, id)))];
}

/**
 * Writes the fact's claim and rollup deltas unless its claim exists (a repeated delivery).
 * `claims` are the snapshots of `revenueClaimRefs`, in order; every read is done before.
 */
export function recordRevenue(tx: Transaction, scope: EnvScope, fact: RevenueFact | null | undefined, claims: readonly DocumentSnapshot<RevenueClaim>[]): void {
  if (!fact || claims.length === 0 || claims[0].exists) return;
  if (fact.kind === 'payment') {
    if (fact.amount <= 0) return;
    const monthly = fact.period && fact.period.end > fact.at ? monthlyAmount(fact.amount, fact.period) : 0;
    const claim: PaymentClaim = {
      rail: fact.rail,
      paymentId: fact.paymentId,
      amount: fact.amount,
      currency: fact.currency,
      at: fact.at,
      monthly,
      periodEnd: monthly > 0 ? fact.period!.end : null,
      refunded: 0,
      mrrEndedAt: null,
    };
    tx.create(claims[0].ref, claim);
    for (const alias of fact.aliases ?? []) {
      if (alias !== fact.paymentId && usableId(alias)) tx.set(claimRef(scope, claimId(fact.rail, alias)), claim);
    }
    const deltas: RollupDelta[] = [{ metric: METRIC.gross, series: seriesKey(fact.currency, fact.rail), hour: hourOf(fact.at), amount: fact.amount, running: false }];
    if (monthly > 0) {
      const mrr = seriesKey(fact.currency);
      deltas.push({ metric: METRIC.mrr, series: mrr, hour: hourOf(Math.max(fact.period!.start, 0)), amount: monthly, running: true });
      deltas.push({ metric: METRIC.mrr, series: mrr, hour: endHourOf(fact.period!.end), amount: -monthly, running: true });
    }
    writeRollupDeltas(tx, scope, REVENUE_ROLLUPS, shardOf(claimId(fact.rail, fact.paymentId), REVENUE_SHARDS), deltas);
    return;
  }

  // The claims after the refund's own are payment claims (revenueClaimRefs).
  const paymentSnap = claims.slice(1).find((snap) => snap.exists) ?? null;
  const found = paymentSnap?.data();
  const payment = found && isPaymentClaim(found) ? found : null;
  const currency = fact.currency ?? payment?.currency ?? null;
  const amount = fact.amount ?? payment?.amount ?? null;
  if (!currency || amount === null || amount <= 0) return;
  const refund: RefundClaim = { rail: fact.rail, refundId: fact.refundId, paymentId: payment?.paymentId ?? null, amount, currency, at: fact.at };
  tx.create(claims[0].ref, refund);
  const deltas: RollupDelta[] = [{ metric: METRIC.refunds, series: seriesKey(currency, fact.rail), hour: hourOf(fact.at), amount, running: false }];
  if (payment && paymentSnap) {
    const refunded = payment.refunded + amount;
    const endsShare = refunded >= payment.amount && payment.monthly > 0 && payment.mrrEndedAt === null && payment.periodEnd !== null && payment.periodEnd > fact.at;
    if (endsShare) {
      // A fully refunded period no longer recurs: its MRR share ends at the refund, not at the period end.
      const mrr = seriesKey(payment.currency);
      deltas.push({ metric: METRIC.mrr, series: mrr, hour: hourOf(fact.at), amount: -payment.monthly, running: true });
      deltas.push({ metric: METRIC.mrr, series: mrr, hour: endHourOf(payment.periodEnd!), amount: payment.monthly, running: true });
    }
    tx.update(paymentSnap.ref, { refunded, ...(endsShare ? { mrrEndedAt: fact.at } : {}) });
  }
  writeRollupDeltas(tx, scope, REVENUE_ROLLUPS, shardOf(refundClaimId(fact.rail, fact.refundId), REVENUE_SHARDS), deltas);
}
