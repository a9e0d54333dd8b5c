import type { JWSRenewalInfoDecodedPayload, JWSTransactionDecodedPayload, ResponseBodyV2DecodedPayload } from '@apple/app-store-server-library';
import { invalidParam } from '../../http/errors';

import { toWireEnv, type Env } from '../../store/env';
import { recorded } from './answer';
import type { AppleRailConfig } from '../config';
import { decideRailEvent } from '../decision';
import { decideForRailCustomer } from '../customerDecision';
import { railLogs } from '../logs';
import { railEventType } from '../model';
import { unverifiedJson } from '../rawBody';
import { answerUnusable, UnusableNotification, unverified } from './rejection';
import { loadWebhookTarget, verifiedScope, type WebhookTarget } from '../target';
import { appleFacts, appleOwner, appleSignedPurchaser } from '../apple/owner';
import type { RailCustomer } from '../customers';
import { appleRevenue } from '../apple/revenue';
import { appleNotificationProblem, appleRenewalProblem, appleTransactionProblem } from '../apple/shape';
import { appleEventName, appleSnapshot } from '../apple/state';
import { AppleVerificationFailed, appleVerifiers, claimedNotificationEnvironment, type AppleEnvironment } from '../apple/verifier';
import type { RailRequest, RailRouteDeps, RailReply } from './ports';

/**
 * `POST /v1/webhooks/apple/{projectId}`: App Store Server Notifications V2. The body is
 * `{ signedPayload }`; the payload, its signed transaction and its signed renewal info are
 * verified by Apple's library with the configuration of the environment the payload names
 * (`Production` → production, anything else → sandbox, which the verifier then enforces).
 * De-duplicated on `notificationUUID`; an older `signedDate` never overwrites newer state.
 */
export async function handleAppleNotification(ctx: RailRequest): Promise<RailReply> {
  const { deps } = ctx;
  const receivedAt = deps.clock.now();
  const target = await loadWebhookTarget(ctx.params.projectId);
  // The outer body is not signed: only its signedPayload is read, and verified before anything in it is judged.
  const signedPayload = (unverifiedJson(ctx.rawBody) as { signedPayload?: unknown } | null | undefined)?.signedPayload;
  if (typeof signedPayload !== 'string' || signedPayload === '') throw invalidParam('Missing required field `signedPayload`.');
  const claimed: AppleEnvironment = claimedNotificationEnvironment(signedPayload) ?? 'Production';
  const env: Env = claimed === 'Production' ? 'live' : 'test';
  const config = target.configs[env].apple;
  if (!config || (config.rootCertificates ?? []).length === 0) {
    throw invalidParam(`The App Store rail is not configured for this project's ${toWireEnv(env)} environment.`);
  }

  let verified: VerifiedNotification;
  try {
    verified = await verifyNotification(deps, config, claimed, signedPayload);
  } catch (err) {
    if (err instanceof UnusableNotification) return answerUnusable(ctx, target, env, 'apple', err, signedPayload, receivedAt);
    if (!(err instanceof AppleVerificationFailed) || err.retryable) throw err;
    throw unverified(ctx, 'apple', target.projectId, `signature_invalid: ${err.reason}`, 'The App Store notification failed signature verification.');
  }
  return decide(ctx, target, env, verified, receivedAt);
}

interface VerifiedNotification {
  payload: ResponseBodyV2DecodedPayload;
  transaction: JWSTransactionDecodedPayload | null;
  renewal: JWSRenewalInfoDecodedPayload | null;
}

/**
 * Verifies the payload, then its nested signed transaction and renewal info. A signature that
 * fails is an AppleVerificationFailed (401, nothing written); a payload that verified but cannot
 * be used is an UnusableNotification (recorded as rejected).
 */
async function verifyNotification(deps: RailRouteDeps, config: AppleRailConfig, environment: AppleEnvironment, signedPayload: string): Promise<VerifiedNotification> {
  const verifiers = appleVerifiers(deps.rails.apple.onlineChecks);
  const payload = await verifiers.verifyNotification(config, environment, signedPayload);
  const problem = appleNotificationProblem(payload as unknown as Record<string, unknown>);
  if (problem) throw new UnusableNotification(problem, payload.notificationUUID);
  const data = payload.data;
  const transaction = data?.signedTransactionInfo ? await verifiers.verifyTransactionIn(config, environment, data.signedTransactionInfo) : null;
  const renewal = data?.signedRenewalInfo ? await verifiers.verifyRenewalInfo(config, environment, data.signedRenewalInfo) : null;
  const nestedProblem =
    (transaction && appleTransactionProblem(transaction as unknown as Record<string, unknown>)) ||
    (renewal && appleRenewalProblem(renewal as unknown as Record<string, unknown>)) ||
    (transaction && renewal && renewal.originalTransactionId !== transaction.originalTransactionId ? 'malformed_payload: renewal info belongs to another subscription' : null);
  if (nestedProblem) throw new UnusableNotification(nestedProblem, payload.notificationUUID);
  return { payload, transaction, renewal };
}

async function decide(ctx: RailRequest, target: WebhookTarget, env: Env, verified: VerifiedNotification, receivedAt: number): Promise<RailReply> {
  const { deps } = ctx;
  const { payload, transaction, renewal } = verified;
  const scope = verifiedScope(target, env);
  const eventId = payload.notificationUUID!;
  const eventType = railEventType('apple', appleEventName(payload.notificationType, payload.subtype));
  const usable = transaction?.originalTransactionId && transaction.transactionId;
  const decide = async (customer: RailCustomer | null) => {
    const signedPurchaser = usable ? await appleSignedPurchaser(scope, transaction, customer) : null;
    return decideRailEvent({
      scope,
      tasks: deps.tasks,
      rail: 'apple',
      eventId,
      eventType,
      subscriptionId: usable ? transaction.originalTransactionId! : null,
      eventAt: payload.signedDate!,
      receivedAt,
      now: deps.clock.now(),
      reconciledWithProvider: false,
      customer,
      claimant: signedPurchaser?.claimant,
      snapshot: () =>
        usable
          ? appleSnapshot({ transaction, renewal, notificationType: payload.notificationType, subtype: payload.subtype, status: payload.data?.status, at: payload.signedDate! })
          : null,
      noSnapshotReason: payload.notificationType === 'TEST' ? 'test_notification' : 'no_transaction',
      railFacts: () => (usable ? appleFacts(transaction) : {}),
      details: { notificationType: payload.notificationType ?? null, subtype: payload.subtype ?? null },
      revenue: usable ? appleRevenue(transaction) : null,
    });
  };
  const outcome = usable
    ? await decideForRailCustomer((relink) => appleOwner(scope, transaction, undefined, { now: deps.clock.now(), eventId, relink }), decide)
    : await decide(null);
  railLogs.notificationDecided('apple', target.projectId, env, eventId, outcome.decision, outcome.reason, outcome.duplicate);
  return recorded(eventId, env, outcome);
}
