import { DAY } from '../../clock';
import type { CatalogRail } from '../../wire/vocabulary';

/**
 * Money as the rails report it, reduced to what the revenue rollup needs. Built by each rail's
 * handler from its verified payload (Stripe invoice and charge, App Store signed transaction,
 * Play subscription read) and recorded by the rail decision's transaction (rails/decision.ts),
 * once per payment or refund id whatever the number of deliveries. Manual grants never make one.
 */
export interface PaymentFact {
  kind: 'payment';
  rail: CatalogRail;
  /** The rail's payment id (Stripe invoice, App Store transactionId, Play orderId). */
  paymentId: string;
  /** Minor units of `currency` (cents; yen). */
  amount: number;
  /** ISO 4217, upper case. */
  currency: string;
  /** When it was paid (Unix ms). */
  at: number;
  /** The paid service period (Unix ms), for MRR; null for a one-off payment. */
  period: { start: number; end: number } | null;
  /** Other ids a refund may name this payment by (Stripe: its charge and payment intent). */
  aliases?: string[];
}

export interface RefundFact {
  kind: 'refund';
  rail: CatalogRail;
  /** Unique per refund (Stripe: charge and its cumulative refunded amount; App Store, Play: the transaction or order). */
  refundId: string;
  /** Payment ids the refund may belong to (most specific first); the first recorded one is used. */
  paymentIds: string[];
  /** Minor units; null: the whole recorded payment (Play voids name only the order). */
  amount: number | null;
  /** Null with a null amount: the payment's currency. */
  currency: string | null;
  at: number;
}

export type RevenueFact = PaymentFact | RefundFact;

/** Exponents looked up so far: building an Intl.NumberFormat per payment showed in the rails' profile (issue 23). */
const digitsByCurrency = new Map<string, number | null>();

/** A currency's minor-unit exponent (ISO 4217 as Intl knows it: USD 2, JPY 0, KWD 3). */
export function currencyDigits(currency: string): number | null {
  if (!/^[A-Z]{3}$/.test(currency)) return null;
  let digits = digitsByCurrency.get(currency);
  if (digits === undefined) {
    digits = intlCurrencyDigits(currency);
    // At most 26³ well-formed codes: the memo stays small whatever the input.
    digitsByCurrency.set(currency, digits);
  }
  return digits;
}

function intlCurrencyDigits(currency: string): number | null {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return null;
  }
}

/** Normalises a currency code (`usd` → `USD`), or null when it is not a known ISO 4217 code. */
export function normaliseCurrency(code: unknown): string | null {
  if (typeof code !== 'string') return null;
  const upper = code.toUpperCase();
  return currencyDigits(upper) === null ? null : upper;
}

/** An amount in thousandths of a unit (App Store `price`) in minor units. */
export function minorFromMilli(milli: number, currency: string): number | null {
  const digits = currencyDigits(currency);
  if (digits === null || !Number.isFinite(milli)) return null;
  return Math.round((milli * 10 ** digits) / 1000);
}

/** Units and nanos (Google `Money`) in minor units. */
export function minorFromUnitsNanos(units: string | number | null | undefined, nanos: number | null | undefined, currency: string): number | null {
  const digits = currencyDigits(currency);
  const whole = Number(units ?? 0);
  if (digits === null || !Number.isFinite(whole)) return null;
  return Math.round(whole * 10 ** digits + ((nanos ?? 0) * 10 ** digits) / 1e9);
}

const MONTH_DAYS = 365.25 / 12;

/**
 * The monthly share of a payment for `period` (MRR): a period of about n months (27 days or
 * more) counts amount / n, so 28- to 31-day months all count the full amount; shorter periods
 * (weekly) scale up to a month.
 */
export function monthlyAmount(amount: number, period: { start: number; end: number }): number {
  const days = (period.end - period.start) / DAY;
  if (days <= 0) return 0;
  if (days >= 27) return Math.round(amount / Math.max(1, Math.round(days / MONTH_DAYS)));
  return Math.round((amount * MONTH_DAYS) / days);
}
