import { randomUUID } from 'node:crypto';
import type { AppleChain } from './appleChain';

/** App Store payloads shaped as Apple documents them (JWSTransaction, JWSRenewalInfo, responseBodyV2). */
export const APPLE_BUNDLE_ID = 'com.example.app';
export const APP_APPLE_ID = 1234567890;
export type AppleEnv = 'Production' | 'Sandbox';

let sequence = 2_000_000_000_000;
export const nextTransactionId = (): string => String((sequence += 1));

export interface TransactionFields {
  transactionId?: string;
  originalTransactionId?: string;
  productId?: string;
  environment?: AppleEnv | string;
  bundleId?: string;
  purchaseDate?: number;
  expiresDate?: number | null;
  signedDate?: number;
  appAccountToken?: string;
  inAppOwnershipType?: 'PURCHASED' | 'FAMILY_SHARED';
  revocationDate?: number;
  revocationReason?: number;
  type?: string;
}

export function transactionPayload(fields: TransactionFields = {}): Record<string, unknown> {
  const now = Date.now();
  const transactionId = fields.transactionId ?? nextTransactionId();
  const payload: Record<string, unknown> = {
    transactionId,
    originalTransactionId: fields.originalTransactionId ?? transactionId,
    webOrderLineItemId: `${transactionId}0`,
    bundleId: fields.bundleId ?? APPLE_BUNDLE_ID,
    productId: fields.productId ?? 'pro_monthly',
    subscriptionGroupIdentifier: '21000001',
    purchaseDate: fields.purchaseDate ?? now - 60_000,
    originalPurchaseDate: fields.purchaseDate ?? now - 60_000,
    quantity: 1,
    type: fields.type ?? 'Auto-Renewable Subscription',
    inAppOwnershipType: fields.inAppOwnershipType ?? 'PURCHASED',
    signedDate: fields.signedDate ?? now,
    environment: fields.environment ?? 'Sandbox',
    transactionReason: 'PURCHASE',
    storefront: 'USA',
    storefrontId: '143441',
    currency: 'USD',
    price: 9990,
  };
  if (fields.expiresDate !== null) payload.expiresDate = fields.expiresDate ?? now + 30 * 86_400_000;
  if (fields.appAccountToken) payload.appAccountToken = fields.appAccountToken;
  if (fields.revocationDate) {
    payload.revocationDate = fields.revocationDate;
    payload.revocationReason = fields.revocationReason ?? 0;
  }
  return payload;
}

export function renewalPayload(fields: { originalTransactionId: string; productId?: string; environment?: AppleEnv; autoRenewStatus?: number; gracePeriodExpiresDate?: number; isInBillingRetryPeriod?: boolean; signedDate?: number }): Record<string, unknown> {
  const payload: Record<string, unknown> = {
    originalTransactionId: fields.originalTransactionId,
    autoRenewProductId: fields.productId ?? 'pro_monthly',
    productId: fields.productId ?? 'pro_monthly',
    autoRenewStatus: fields.autoRenewStatus ?? 1,
    signedDate: fields.signedDate ?? Date.now(),
    environment: fields.environment ?? 'Sandbox',
    recentSubscriptionStartDate: Date.now() - 60_000,
  };
  if (fields.gracePeriodExpiresDate) payload.gracePeriodExpiresDate = fields.gracePeriodExpiresDate;
  if (fields.isInBillingRetryPeriod !== undefined) payload.isInBillingRetryPeriod = fields.isInBillingRetryPeriod;
  return payload;
}

export interface NotificationFields {
  notificationType: string;
  subtype?: string;
  environment?: AppleEnv | string;
  signedDate?: number;
  notificationUUID?: string;
  transaction?: Record<string, unknown>;
  renewal?: Record<string, unknown>;
  status?: number;
  bundleId?: string;
  appAppleId?: number;
}

/** A signed responseBodyV2 (`signedPayload`), its transaction and renewal info signed by the same chain. */
export function signedNotification(chain: AppleChain, fields: NotificationFields): { signedPayload: string; notificationUUID: string } {
  const environment = fields.environment ?? 'Sandbox';
  const notificationUUID = fields.notificationUUID ?? randomUUID();
  const data: Record<string, unknown> = {
    environment,
    bundleId: fields.bundleId ?? APPLE_BUNDLE_ID,
    bundleVersion: '1.0',
  };
  if (environment === 'Production') data.appAppleId = fields.appAppleId ?? APP_APPLE_ID;
  if (fields.transaction) data.signedTransactionInfo = chain.sign(fields.transaction);
  if (fields.renewal) data.signedRenewalInfo = chain.sign(fields.renewal);
  if (fields.status !== undefined) data.status = fields.status;
  const payload: Record<string, unknown> = {
    notificationType: fields.notificationType,
    notificationUUID,
    data,
    version: '2.0',
    signedDate: fields.signedDate ?? Date.now(),
  };
  if (fields.subtype) payload.subtype = fields.subtype;
  return { signedPayload: chain.sign(payload), notificationUUID };
}
