import type { JWSTransactionDecodedPayload } from '@apple/app-store-server-library';
import { findCustomerIdByIdentity } from '../../customers/lookup';
import type { EnvScope } from '../../store/scope';
import type { SubscriptionRecord } from '../model';
import { resolveRailCustomer, type RailCustomer, type RailCustomerOptions, type RailIdentity, type RailResolution } from '../customers';

/**
 * The customer an App Store subscription belongs to: whoever already holds its
 * originalTransactionId (stable across renewals), else the signed appAccountToken, else the
 * token the app sent with a purchase sync; a customer is created when none is known.
 *
 * A family-shared transaction belongs to the organizer: only identifiers that are already
 * linked can name its customer, and nothing the caller sent is linked to it.
 */
export async function appleOwner(scope: EnvScope, transaction: JWSTransactionDecodedPayload, callerToken: string | undefined, options: RailCustomerOptions): Promise<RailResolution> {
  const originalTransactionId = transaction.originalTransactionId!;
  const signedToken = transaction.appAccountToken ? transaction.appAccountToken.toLowerCase() : undefined;
  if (isFamilyShared(transaction)) {
    const customerId = (await findCustomerIdByIdentity(scope, 'apple_otx', originalTransactionId)) ?? (signedToken ? await findCustomerIdByIdentity(scope, 'apple_aat', signedToken) : null);
    return { customer: customerId ? { customerId, allLinkedBefore: false, check: null } : null, audited: null };
  }
  const hints: RailIdentity[] = [{ kind: 'apple_otx', id: originalTransactionId }];
  const token = signedToken ?? callerToken?.toLowerCase();
  if (token) hints.push({ kind: 'apple_aat', id: token });
  return resolveRailCustomer(scope, { rail: hints }, options);
}

export const isFamilyShared = (transaction: JWSTransactionDecodedPayload): boolean => transaction.inAppOwnershipType === 'FAMILY_SHARED';

export function appleFacts(transaction: JWSTransactionDecodedPayload) {
  return {
    apple: {
      originalTransactionId: transaction.originalTransactionId!,
      lastTransactionId: transaction.transactionId!,
      ownership: transaction.inAppOwnershipType ?? 'PURCHASED',
      appAccountToken: transaction.appAccountToken ?? null,
    },
  };
}

/**
 * A notification's claim on a subscription: the customer of the appAccountToken the transaction
 * signs, when that token is new to the subscription's record (a purchase made by another app
 * account). The token the record already holds claims nothing, so renewals of a subscription
 * that was transferred never move it back. Family-shared transactions claim nothing. `owner`:
 * the transaction's owner as appleOwner resolved it; when every identifier it named (the token
 * among them) was already linked to it, or none was and the decision creates it for all of them,
 * the token's customer is the owner, known without a second read.
 */
export async function appleSignedPurchaser(
  scope: EnvScope,
  transaction: JWSTransactionDecodedPayload,
  owner: RailCustomer | null,
): Promise<{ claimant: (current: SubscriptionRecord | null) => string | null } | null> {
  const token = transaction.appAccountToken?.toLowerCase();
  if (!token || isFamilyShared(transaction)) return null;
  const customerId = owner?.allLinkedBefore || owner?.check?.kind === 'create' ? owner.customerId : await findCustomerIdByIdentity(scope, 'apple_aat', token);
  if (!customerId) return null;
  return { claimant: (current) => (current?.apple?.appAccountToken?.toLowerCase() === token ? null : customerId) };
}
