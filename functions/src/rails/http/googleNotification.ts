import { createHash } from 'node:crypto';
import { invalidParam } from '../../http/errors';

import type { Env } from '../../store/env';
import { recorded } from './answer';
import type { GoogleRailConfig } from '../config';
import { resolveRailCustomer, type RailIdentity } from '../customers';
import { decideForRailCustomer } from '../customerDecision';
import { decideRailEvent, type RailDecision } from '../decision';
import { railLogs } from '../logs';
import { railEventType, type SubscriptionRecord } from '../model';
import { parseVerifiedJson } from '../rawBody';
import { answerUnusable, UnusableNotification, unverified } from './rejection';
import { loadWebhookTarget, verifiedScope, type WebhookTarget } from '../target';
import { readPlaySubscription, type PlaySubscription } from '../google/playApi';
import { readPush, SUBSCRIPTION_NOTIFICATION_TYPES, type DeveloperNotification } from '../google/pubsub';
import { PushTokenRejected, verifyPushToken } from '../google/pushToken';
import { googleRevenue } from '../google/revenue';
import { playSnapshot } from '../google/state';
import type { TaskQueue } from '../../tasks/queue';
import type { RailRequest, RailReply } from './ports';

/**
 * `POST /v1/webhooks/google/{projectId}`: Play real-time developer notifications pushed by
 * Pub/Sub. The push's OIDC token is verified first; the notification itself carries no state
 * worth trusting, so the subscription is re-read from the Play Developer API and rebuilt from
 * that read. Production by default; a license-tested purchase (`testPurchase`) is reconciled
 * into sandbox. De-duplicated on the Pub/Sub message id.
 */
const REVOKED = 12;

export async function handleGoogleNotification(ctx: RailRequest): Promise<RailReply> {
  const { deps } = ctx;
  const receivedAt = deps.clock.now();
  const target = await loadWebhookTarget(ctx.params.projectId);
  const candidates = (['live', 'test'] as const).flatMap((env) => (target.configs[env].google ? [target.configs[env].google!] : []));
  if (candidates.length === 0) throw invalidParam('The Google Play rail is not configured for this project.');

  const config = await authenticatedConfig(ctx, target, candidates, receivedAt);
  // Only now, with the push token verified, is the body parsed and judged.
  const parsed = parseVerifiedJson(ctx.rawBody);
  const read = parsed.problem !== null ? { problem: parsed.problem, messageId: null } : readPush(parsed.value);
  if (!('push' in read)) {
    // Verified as Pub/Sub's, but unusable: recorded in the partition Play notifications default to.
    return answerUnusable(ctx, target, 'live', 'google', new UnusableNotification(read.problem, read.messageId), ctx.rawBody, receivedAt);
  }
  const { messageId, notification } = read.push;
  const base = {
    tasks: deps.tasks,
    rail: 'google' as const,
    eventId: messageId,
    eventAt: Number(notification.eventTimeMillis) || receivedAt,
    receivedAt,
  };
  const acknowledge = async (reason: string, type: string): Promise<RailReply> => {
    const scope = verifiedScope(target, 'live');
    const outcome = await decideRailEvent({
      ...base,
      scope,
      eventType: railEventType('google', type),
      now: deps.clock.now(),
      subscriptionId: null,
      customer: null,
      reconciledWithProvider: false,
      snapshot: () => null,
      noSnapshotReason: reason,
    });
    return answer(target, 'live', messageId, outcome);
  };

  if (notification.packageName !== config.packageName) return acknowledge('package_mismatch', 'notification');
  if (notification.testNotification) return acknowledge('test_notification', 'TEST_NOTIFICATION');
  const voided = notification.voidedPurchaseNotification;
  if (voided) {
    if (voided.productType !== 1 || !voided.purchaseToken) return acknowledge('one_time_product_not_supported', 'VOIDED_PURCHASE');
    return reconcile(ctx, target, config, base, notification, voided.purchaseToken, 'VOIDED_PURCHASE', { at: base.eventAt, as: 'refunded' });
  }
  const subscription = notification.subscriptionNotification;
  if (subscription?.purchaseToken) {
    const type = SUBSCRIPTION_NOTIFICATION_TYPES[subscription.notificationType ?? 0] ?? `SUBSCRIPTION_${subscription.notificationType ?? 'UNKNOWN'}`;
    const takenBack = subscription.notificationType === REVOKED ? { at: base.eventAt, as: 'revoked' as const } : null;
    return reconcile(ctx, target, config, base, notification, subscription.purchaseToken, type, takenBack);
  }
  if (notification.oneTimeProductNotification) return acknowledge('one_time_product_not_supported', 'ONE_TIME_PRODUCT');
  return acknowledge('notification_type_not_handled', 'notification');
}

/** The configuration whose push audience the token verifies against; a failure writes nothing. */
async function authenticatedConfig(ctx: RailRequest, target: WebhookTarget, candidates: GoogleRailConfig[], receivedAt: number): Promise<GoogleRailConfig> {
  const { deps } = ctx;
  const reasons: string[] = [];
  for (const config of candidates) {
    try {
      await verifyPushToken(deps.rails.google, config, ctx.header('authorization'), receivedAt);
      return config;
    } catch (err) {
      if (!(err instanceof PushTokenRejected)) throw err;
      reasons.push(err.reason);
    }
  }
  throw unverified(ctx, 'google', target.projectId, `push_token_invalid: ${[...new Set(reasons)].join('; ')}`, 'The Pub/Sub push token failed verification.');
}

export const purchaseTokenHash = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

type GoogleBase = { tasks: TaskQueue; rail: 'google'; eventId: string; eventAt: number; receivedAt: number };
type TakenBack = NonNullable<NonNullable<SubscriptionRecord['google']>['takenBack']>;

async function reconcile(
  ctx: RailRequest,
  target: WebhookTarget,
  config: GoogleRailConfig,
  base: GoogleBase,
  notification: DeveloperNotification,
  purchaseToken: string,
  type: string,
  takenBack: TakenBack | null,
): Promise<RailReply> {
  const { deps } = ctx;
  const subscriptionId = purchaseTokenHash(purchaseToken);
  const readAt = deps.clock.now();
  let play: PlaySubscription | null;
  try {
    play = await readPlaySubscription(deps, target.projectId, config, purchaseToken);
  } catch (err) {
    railLogs.providerUnavailable('google', target.projectId, err instanceof Error ? err.message : String(err));
    throw err;
  }
  const env: Env = play?.testPurchase ? 'test' : 'live';
  const scope = verifiedScope(target, env);
  const eventType = railEventType('google', type);
  if (!play) {
    const outcome = await decideRailEvent({ ...base, scope, eventType, now: deps.clock.now(), subscriptionId, customer: null, reconciledWithProvider: false, snapshot: () => null, noSnapshotReason: 'purchase_not_found' });
    return answer(target, env, base.eventId, outcome);
  }
  const linkedTokenHash = play.linkedPurchaseToken ? purchaseTokenHash(play.linkedPurchaseToken) : null;
  const takenBackOf = (record: SubscriptionRecord | null): TakenBack | null => takenBack ?? record?.google?.takenBack ?? null;
  const hints = playHints(purchaseToken, play);
  const outcome = await decideForRailCustomer(
    (relink) => resolveRailCustomer(scope, hints, { now: deps.clock.now(), eventId: base.eventId, relink }),
    (customer) =>
      decideRailEvent({
        ...base,
        scope,
        eventType,
        now: deps.clock.now(),
        subscriptionId,
        customer,
        // The customer the purchase's obfuscated account id names may be another person than the
        // record's owner: the project's transfer setting decides.
        claimant: () => customer?.customerId ?? null,
        readAt,
        reconciledWithProvider: true,
        snapshot: (record) => {
          const back = takenBackOf(record);
          return playSnapshot(subscriptionId, play, readAt, back?.at ?? null, back?.as);
        },
        noSnapshotReason: 'purchase_not_found',
        railFacts: (record) => ({
          google: { packageName: notification.packageName ?? config.packageName, testPurchase: Boolean(play.testPurchase), linkedTokenHash, takenBack: takenBackOf(record) },
        }),
        details: { testPurchase: Boolean(play.testPurchase), subscriptionState: play.subscriptionState ?? null },
        revenue: googleRevenue(type, notification, play, base.eventAt),
      }),
  );
  return answer(target, env, base.eventId, outcome);
}

/**
 * The purchase token (and the one it replaced, on an upgrade), the obfuscated account id the
 * app set at purchase, and the customer it names when the app used its Tessera customer id.
 */
function playHints(purchaseToken: string, play: PlaySubscription): { rail: RailIdentity[]; namedCustomerId: string | null } {
  const rail: RailIdentity[] = [{ kind: 'google_token', id: purchaseToken }];
  if (play.linkedPurchaseToken) rail.push({ kind: 'google_token', id: play.linkedPurchaseToken });
  const account = play.externalAccountIdentifiers?.obfuscatedExternalAccountId ?? null;
  if (account) rail.push({ kind: 'google_account', id: account });
  return { rail, namedCustomerId: account };
}

function answer(target: WebhookTarget, env: Env, eventId: string, outcome: RailDecision): RailReply {
  railLogs.notificationDecided('google', target.projectId, env, eventId, outcome.decision, outcome.reason, outcome.duplicate);
  return recorded(eventId, env, outcome);
}
