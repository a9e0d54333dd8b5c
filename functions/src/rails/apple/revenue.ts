import type { JWSTransactionDecodedPayload } from '@apple/app-store-server-library';
import { minorFromMilli, normaliseCurrency, type RevenueFact } from '../../store/rollups/revenueFacts';

/**
 * The money an App Store signed transaction shows, for the revenue report: its `price`
 * (thousandths of a unit) and `currency`, paid at `purchaseDate` for the period up to
 * `expiresDate`; a transaction with a `revocationDate` (refunded) is that payment's refund. The
 * same transaction arrives in several notifications and in purchase sync; the claim on its
 * `transactionId` counts it once. A family-shared copy is not a payment (the organizer paid);
 * free trials (price 0) are none either.
 */
export function appleRevenue(transaction: JWSTransactionDecodedPayload): RevenueFact | null {
  const transactionId = transaction.transactionId;
  const currency = normaliseCurrency(transaction.currency);
  if (!transactionId || !currency || typeof transaction.price !== 'number' || transaction.price <= 0) return null;
  if (transaction.inAppOwnershipType === 'FAMILY_SHARED') return null;
  const amount = minorFromMilli(transaction.price, currency);
  if (amount === null || amount <= 0) return null;
  if (typeof transaction.revocationDate === 'number') {
    return { kind: 'refund', rail: 'apple', refundId: transactionId, paymentIds: [transactionId], amount, currency, at: transaction.revocationDate };
  }
  const at = transaction.purchaseDate ?? transaction.signedDate;
  if (typeof at !== 'number') return null;
  const end = transaction.expiresDate;
  return { kind: 'payment', rail: 'apple', paymentId: transactionId, amount, currency, at, period: typeof end === 'number' && end > at ? { start: at, end } : null };
}
