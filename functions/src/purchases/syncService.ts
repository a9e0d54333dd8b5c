import type { JWSRenewalInfoDecodedPayload, JWSTransactionDecodedPayload } from '@apple/app-store-server-library';
import { DomainError, invalidParamValue } from '../errors/domain';
import type { Clock } from '../clock';
import { toPublicEntitlements } from '../entitlements/publicShape';
import { projectionRef } from '../entitlements/projection';
import { findCustomerIdByIdentity } from '../customers/lookup';
import { appleFacts, appleOwner, isFamilyShared } from '../rails/apple/owner';
import { appleRenewalProblem, appleTransactionProblem } from '../rails/apple/shape';
import { appleSnapshot } from '../rails/apple/state';
import { AppleVerificationFailed, appleVerifiers, type AppleEnvironment } from '../rails/apple/verifier';
import { readRailsConfig, type AppleRailConfig } from '../rails/config';
import { appleRevenue } from '../rails/apple/revenue';
import { decideRailEvent } from '../rails/decision';
import { decideForRailCustomer } from '../rails/customerDecision';
import type { RailCustomer } from '../rails/customers';
import { railEventType } from '../rails/model';
import type { WireEnv } from '../store/env';
import type { EnvScope } from '../store/scope';
import { purchaseLogs } from './logs';
import type { TaskQueue } from '../tasks/queue';
import type { PurchaseResult } from '../wire/purchases';

/**
 * Purchase sync: a signed App Store transaction forwarded by the app, so entitlements
 * provision before Apple's server notification arrives. The transaction is verified by
 * Apple's library (the environment it claims first, then the other), must belong to the key's environment, and
 * then runs the same decision as a notification (rails/decision.ts) under the event id
 * `apple_txn_<transactionId>`, which is what makes a re-sent transaction a no-op.
 *
 * The caller (the customer its `appAccountToken` names) may differ from the subscription's owner
 * (a restore by another app user): the project's transfer setting decides whether the verified
 * transaction moves the subscription to the caller (identity/transferPolicy.ts, rails/decision.ts).
 */
export interface AppleSyncInput {
  signedTransactionInfo: string;
  signedRenewalInfo?: string;
  appAccountToken?: string;
}


/** What purchase sync is given: the key's partition, the clock, and whether Apple is asked online. */
export interface SyncPorts {
  scope: EnvScope;
  clock: Clock;
  /** Fans out the webhook events a decision records. */
  tasks: TaskQueue;
  appleOnlineChecks: boolean;
}

/** Who syncs: the request id (logs, audit details) and the key's environment as the wire names it. */
export interface SyncCaller {
  requestId: string;
  wireEnv: WireEnv;
}

export const syncEventId = (transactionId: string): string => `apple_txn_${transactionId}`;

export async function syncApplePurchase(ports: SyncPorts, caller: SyncCaller, input: AppleSyncInput): Promise<PurchaseResult> {
  const { scope, clock } = ports;
  const receivedAt = clock.now();
  const config = (await readRailsConfig(scope)).apple;
  if (!config || !config.bundleId || (config.rootCertificates ?? []).length === 0) {
    throw invalidParamValue('The App Store rail is not configured for this project and environment (tessera rails set apple).');
  }
  const verifiers = appleVerifiers(ports.appleOnlineChecks);
  let verified: { transaction: JWSTransactionDecodedPayload; environment: AppleEnvironment };
  try {
    verified = await verifiers.verifyTransaction(config, input.signedTransactionInfo);
  } catch (err) {
    if (err instanceof AppleVerificationFailed && !err.retryable) {
      purchaseLogs.transactionRejected(caller.requestId, scope.projectId, err.reason);
      throw new DomainError('invalid_api_key', 'signedTransactionInfo failed App Store verification (production and sandbox).', { internal: err.reason });
    }
    throw err;
  }
  const { transaction, environment } = verified;
  const payloadEnv: WireEnv = environment === 'Production' ? 'production' : 'sandbox';
  if (payloadEnv !== caller.wireEnv) {
    throw new DomainError('env_mismatch', `This ${caller.wireEnv} key cannot sync a ${payloadEnv} transaction.`);
  }
  // Signed by Apple, yet its fields name documents and are stored: a payload the service cannot use is the caller's 400.
  const problem = appleTransactionProblem(transaction as unknown as Record<string, unknown>);
  if (problem) {
    purchaseLogs.transactionUnusable(caller.requestId, scope.projectId, problem);
    throw invalidParamValue(`Invalid value for \`signedTransactionInfo\`: ${problem.replace(/^malformed_payload: /, '')}.`);
  }
  if (!transaction.transactionId || !transaction.originalTransactionId || !transaction.productId || transaction.signedDate === undefined) {
    throw invalidParamValue('signedTransactionInfo lacks transactionId, originalTransactionId, productId or signedDate.');
  }
  const renewal = await optionalRenewal(ports, caller, config, environment, transaction, input.signedRenewalInfo);
  const familyShared = isFamilyShared(transaction);
  const snapshot = appleSnapshot({ transaction, renewal, at: transaction.signedDate });
  // The caller: the customer its appAccountToken is linked to (by its own identify). A family
  // member is never one (the organizer owns the subscription).
  const presented: { customerId: string | null } = { customerId: null };
  const outcome = await decideForRailCustomer(
    (relink) => appleOwner(scope, transaction, input.appAccountToken, { now: clock.now(), relink }),
    async (owner) => {
      const claimant = familyShared ? null : await callerCustomer(scope, input.appAccountToken, owner);
      presented.customerId = claimant;
      return decideRailEvent({
        scope,
        tasks: ports.tasks,
        rail: 'apple',
        eventId: syncEventId(transaction.transactionId!),
        eventType: railEventType('apple', 'purchase_sync'),
        subscriptionId: transaction.originalTransactionId!,
        eventAt: transaction.signedDate!,
        receivedAt,
        now: clock.now(),
        reconciledWithProvider: false,
        customer: owner,
        claimant: () => claimant,
        snapshot: () => snapshot,
        noSnapshotReason: 'no_subscription',
        railFacts: () => appleFacts(transaction),
        details: { requestId: caller.requestId, transactionId: transaction.transactionId, familyShared },
        revenue: appleRevenue(transaction),
      });
    },
  );
  purchaseLogs.synced(caller.requestId, scope.projectId, outcome.decision, outcome.reason, outcome.duplicate);
  const presentedFor = presented.customerId;
  // A family member's device never learns the organizer's customer or entitlements; a caller
  // whose subscription stayed with another owner (transfer setting `keep`) learns only its own.
  if (presentedFor && outcome.customerId !== presentedFor) {
    const own = await scope.get(projectionRef(scope, presentedFor));
    return { object: 'purchase_result', serviceCustomerId: presentedFor, env: caller.wireEnv, entitlements: toPublicEntitlements(own.data() ?? null, clock.now()) };
  }
  const visible = familyShared ? null : outcome.customerId;
  return {
    object: 'purchase_result',
    serviceCustomerId: visible ?? '',
    env: caller.wireEnv,
    entitlements: visible ? toPublicEntitlements(outcome.projection, clock.now()) : [],
  };
}

/**
 * The customer the caller's appAccountToken is linked to, if any (a read, never a link). When the
 * owner was resolved from that very token's entry (linked before, or created with the decision
 * for it), that is the owner, without a read.
 */
async function callerCustomer(scope: EnvScope, appAccountToken: string | undefined, owner: RailCustomer | null): Promise<string | null> {
  if (!appAccountToken) return null;
  const token = appAccountToken.toLowerCase();
  const created = owner?.check?.kind === 'create' ? owner.check.identities : [];
  if (created.some((identity) => identity.kind === 'apple_aat' && identity.id === token)) return owner!.customerId;
  return findCustomerIdByIdentity(scope, 'apple_aat', token);
}

/** Renewal info is optional and its failure is not fatal: the purchase stands on the transaction. */
async function optionalRenewal(
  ports: SyncPorts,
  caller: SyncCaller,
  config: AppleRailConfig,
  environment: AppleEnvironment,
  transaction: JWSTransactionDecodedPayload,
  signedRenewalInfo: string | undefined,
): Promise<JWSRenewalInfoDecodedPayload | null> {
  if (!signedRenewalInfo) return null;
  try {
    const renewal = await appleVerifiers(ports.appleOnlineChecks).verifyRenewalInfo(config, environment, signedRenewalInfo);
    const problem = appleRenewalProblem(renewal as unknown as Record<string, unknown>);
    if (problem) {
      purchaseLogs.renewalInfoIgnored(caller.requestId, ports.scope.projectId, problem);
      return null;
    }
    return renewal.originalTransactionId === transaction.originalTransactionId ? renewal : null;
  } catch (err) {
    purchaseLogs.renewalInfoIgnored(caller.requestId, ports.scope.projectId, err instanceof AppleVerificationFailed ? err.reason : 'unverifiable');
    return null;
  }
}
