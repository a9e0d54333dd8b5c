import type Stripe from 'stripe';
import { stripeLibrary } from '../stripe/library';
import { invalidParam } from '../../http/errors';

import { toWireEnv, type Env } from '../../store/env';
import { isUsableDocId } from '../../store/ids';
import type { EnvScope } from '../../store/scope';
import { recorded } from './answer';
import type { StripeRailConfig } from '../config';
import { resolveRailCustomer } from '../customers';
import { decideForRailCustomer } from '../customerDecision';
import { decideRailEvent, type RailDecision, type RailDecisionInput } from '../decision';
import { railLogs } from '../logs';
import { railEventType, type SubscriptionRecord, type SubscriptionSnapshot } from '../model';
import { parseVerifiedJson, unverifiedJson } from '../rawBody';
import { answerUnusable, UnusableNotification, unverified } from './rejection';
import { loadWebhookTarget, verifiedScope, type WebhookTarget } from '../target';
import {
  fieldNumber,
  fieldObject,
  fieldString,
  idOf,
  metadataOf,
  paymentRefsOfCharge,
  paymentRefsOfDispute,
  paymentRefsOfInvoice,
  subscriptionIdOfInvoice,
  type StripeObject,
} from '../stripe/objects';
import { recordPaymentLinks, subscriptionForPayment } from '../stripe/payments';
import { readStripeSubscription } from '../stripe/provider';
import { stripeRevenue } from '../stripe/revenue';
import { stripeEventProblem } from '../stripe/shape';
import { stripeSnapshot, type StripeOverlay } from '../stripe/state';
import type { RailRequest, RailRouteDeps, RailReply } from './ports';

/**
 * `POST /v1/webhooks/stripe/{projectId}`: the `Stripe-Signature` header is checked on the raw
 * body by Stripe's library, with the signing secret of the environment the event claims
 * (`livemode`), read from the secret store; only then is the event's partition opened. The
 * subscription's state is re-read from Stripe (with the project's secret key) and rebuilt
 * from that read, so duplicated, late or reordered events cannot regress it.
 */
const SUBSCRIPTION_EVENTS = new Set([
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'customer.subscription.paused',
  'customer.subscription.resumed',
  'customer.subscription.trial_will_end',
  'customer.subscription.pending_update_applied',
  'customer.subscription.pending_update_expired',
]);
const INVOICE_EVENTS = new Set(['invoice.paid', 'invoice.payment_succeeded', 'invoice.payment_failed', 'invoice.marked_uncollectible', 'invoice.payment_action_required']);
const PAID_INVOICE_EVENTS = new Set(['invoice.paid', 'invoice.payment_succeeded']);
const CHECKOUT_EVENTS = new Set(['checkout.session.completed', 'checkout.session.async_payment_succeeded']);

export async function handleStripeNotification(ctx: RailRequest): Promise<RailReply> {
  const { deps } = ctx;
  const receivedAt = deps.clock.now();
  const target = await loadWebhookTarget(ctx.params.projectId);
  const verified = await verifyStripeBody(ctx, target, receivedAt);
  const { env, config, payload } = verified;
  try {
    const problem = verified.problem ?? stripeEventProblem(payload);
    if (problem) throw new UnusableNotification(problem, fieldObject(payload)?.id);
    const event = payload as Stripe.Event;
    const scope = verifiedScope(target, env);
    const outcome = await decideStripeEvent(deps, scope, config, event, receivedAt);
    railLogs.notificationDecided('stripe', target.projectId, env, event.id, outcome.decision, outcome.reason, outcome.duplicate);
    return recorded(event.id, env, outcome);
  } catch (err) {
    if (!(err instanceof UnusableNotification)) throw err;
    return answerUnusable(ctx, target, env, 'stripe', err, ctx.rawBody, receivedAt);
  }
}

interface VerifiedStripeBody {
  /** The mode whose signing secret verified the body: the partition it belongs to. */
  env: Env;
  config: StripeRailConfig;
  /** The verified body as parsed (any JSON value: its shape is checked next). */
  payload: unknown;
  /** Why the verified bytes are not usable JSON (`payload` is undefined when they are not JSON at all). */
  problem: string | null;
}

/**
 * The body verified with the signing secret of the mode it claims (`livemode`). A body that
 * claims no mode (not an object, or no boolean `livemode`) is tried with each configured mode's
 * secret, and belongs to the mode whose secret verified it.
 */
async function verifyStripeBody(ctx: RailRequest, target: WebhookTarget, receivedAt: number): Promise<VerifiedStripeBody> {
  const livemode = fieldObject(unverifiedJson(ctx.rawBody))?.livemode;
  const claimed: Env[] = typeof livemode === 'boolean' ? [livemode ? 'live' : 'test'] : ['test', 'live'];
  const configured = claimed.filter((env) => target.configs[env].stripe);
  if (configured.length === 0) throw invalidParam(`Stripe is not configured for this project's ${toWireEnv(claimed[0])} environment.`);
  const failures: string[] = [];
  const { webhooks } = await stripeLibrary();
  for (const env of configured) {
    const config = target.configs[env].stripe!;
    const signingSecret = await ctx.deps.secrets.read(target.projectId, config.webhookSecretRef);
    try {
      // The bytes first (Stripe's own check); only verified bytes are parsed and judged.
      webhooks.signature!.verifyHeader(ctx.rawBody, ctx.header('stripe-signature') ?? '', signingSecret, undefined, undefined, receivedAt);
    } catch (err) {
      failures.push(`${env}: ${err instanceof Error ? err.message.slice(0, 200) : 'unknown'}`);
      continue;
    }
    const parsed = parseVerifiedJson(ctx.rawBody);
    return { env, config, payload: parsed.value, problem: parsed.problem };
  }
  throw unverified(ctx, 'stripe', target.projectId, `signature_invalid: ${failures.join('; ')}`, 'The Stripe-Signature header does not verify against this endpoint’s signing secret.');
}

async function decideStripeEvent(deps: RailRouteDeps, scope: EnvScope, config: StripeRailConfig, event: Stripe.Event, receivedAt: number): Promise<RailDecision> {
  const object = event.data.object as unknown as StripeObject;
  const base = {
    scope,
    tasks: deps.tasks,
    rail: 'stripe' as const,
    eventId: event.id,
    eventType: railEventType('stripe', event.type),
    eventAt: event.created * 1000,
    receivedAt,
    details: { livemode: event.livemode },
    // Recorded with whatever this event decides, once per invoice, refund or dispute.
    revenue: stripeRevenue(event, PAID_INVOICE_EVENTS),
  };
  const ignore = (reason: string) =>
    decideRailEvent({ ...base, now: deps.clock.now(), subscriptionId: null, customer: null, reconciledWithProvider: false, snapshot: () => null, noSnapshotReason: reason });

  if (SUBSCRIPTION_EVENTS.has(event.type)) {
    return reconcile(deps, scope, config, base, object.id, object, {});
  }
  if (INVOICE_EVENTS.has(event.type)) {
    const subscriptionId = subscriptionIdOfInvoice(object);
    if (!subscriptionId) return ignore('not_a_subscription_invoice');
    const paidAt = PAID_INVOICE_EVENTS.has(event.type) ? (fieldNumber(fieldObject(object.status_transitions)?.paid_at) ?? event.created) * 1000 : null;
    return reconcile(deps, scope, config, base, subscriptionId, null, { paidAt, paymentRefs: paymentRefsOfInvoice(object) });
  }
  if (CHECKOUT_EVENTS.has(event.type)) {
    const subscriptionId = idOf(object.subscription);
    if (!subscriptionId) return ignore('checkout_without_subscription');
    return reconcile(deps, scope, config, base, subscriptionId, null, { checkout: object });
  }
  if (event.type === 'charge.refunded') {
    if (object.refunded !== true) return ignore('partial_refund');
    return takeBack(deps, scope, base, paymentRefsOfCharge(object), 'refund', String(object.id));
  }
  if (event.type === 'charge.dispute.closed') {
    if (object.status !== 'lost') return ignore('dispute_not_lost');
    return takeBack(deps, scope, base, paymentRefsOfDispute(object), 'dispute_lost', idOf(object.charge) ?? String(object.id));
  }
  return ignore('event_type_not_handled');
}

type StripeBase = Omit<RailDecisionInput, 'now' | 'subscriptionId' | 'customer' | 'reconciledWithProvider' | 'snapshot' | 'noSnapshotReason'>;

interface ReconcileExtras {
  /** An invoice was paid at this instant (ms): access given back after a refund before it. */
  paidAt?: number | null;
  paymentRefs?: string[];
  /** The checkout session that created the subscription (names the customer). */
  checkout?: StripeObject;
}

async function reconcile(
  deps: RailRouteDeps,
  scope: EnvScope,
  config: StripeRailConfig,
  base: StripeBase,
  subscriptionId: unknown,
  carried: StripeObject | null,
  extras: ReconcileExtras,
): Promise<RailDecision> {
  // It names the subscription record and a path at Stripe's API: checked before anything is read or written.
  if (!isUsableDocId(subscriptionId)) throw new UnusableNotification('malformed_event: the subscription id is not a usable id', base.eventId);
  const readAt = deps.clock.now();
  let current: StripeObject | null;
  try {
    current = await readStripeSubscription(deps, scope.projectId, config, subscriptionId);
  } catch (err) {
    railLogs.providerUnavailable('stripe', scope.projectId, err instanceof Error ? err.message : String(err));
    throw err;
  }
  const subscription = current ?? carried;
  const reconciled = current !== null;
  if (!subscription) {
    return decideRailEvent({ ...base, now: deps.clock.now(), subscriptionId, customer: null, reconciledWithProvider: false, snapshot: () => null, noSnapshotReason: 'unknown_subscription' });
  }
  const stripeCustomerId = idOf(subscription.customer);
  const checkout = extras.checkout;
  const metadata = { ...(checkout ? metadataOf(checkout) : {}), ...metadataOf(subscription) };
  const hints = {
    rail: stripeCustomerId ? [{ kind: 'stripe' as const, id: stripeCustomerId }] : [],
    developerUserId: metadata.developerUserId ?? fieldString(checkout?.client_reference_id),
    namedCustomerId: metadata.serviceCustomerId,
  };
  const overlay = (record: SubscriptionRecord | null): StripeOverlay => {
    const previous = record?.stripe ?? { customerId: null, refund: null, lastPaidAt: null };
    const lastPaidAt = Math.max(previous.lastPaidAt ?? 0, extras.paidAt ?? 0) || null;
    return { customerId: stripeCustomerId ?? previous.customerId, refund: previous.refund, lastPaidAt };
  };
  const latestInvoice = idOf(subscription.latest_invoice);
  const paymentRefs = [...(extras.paymentRefs ?? []), ...(latestInvoice ? [latestInvoice] : [])];
  return decideForRailCustomer(
    (relink) => resolveRailCustomer(scope, hints, { now: deps.clock.now(), eventId: base.eventId, relink }),
    (customer) =>
      decideRailEvent({
        ...base,
        now: deps.clock.now(),
        subscriptionId,
        customer,
        // The customer the verified subscription names (its metadata's user or customer) may be
        // another person than the record's owner: the project's transfer setting decides.
        claimant: () => customer?.customerId ?? null,
        readAt: reconciled ? readAt : undefined,
        reconciledWithProvider: reconciled,
        snapshot: (record) => stripeSnapshot(subscription, overlay(record), reconciled ? readAt : base.eventAt),
        noSnapshotReason: 'unknown_subscription',
        railFacts: (record) => ({ stripe: overlay(record) }),
        extraWrites: (tx, outcome) => {
          if (!outcome.duplicate) recordPaymentLinks(tx, scope, paymentRefs, subscriptionId, deps.clock.now());
        },
      }),
  );
}

/** A full refund or a lost dispute: the paid-for subscription's grants are revoked now. */
async function takeBack(deps: RailRouteDeps, scope: EnvScope, base: StripeBase, refs: string[], reason: 'refund' | 'dispute_lost', chargeId: string): Promise<RailDecision> {
  const subscriptionId = await subscriptionForPayment(scope, refs);
  const refund = { at: base.eventAt, chargeId, reason };
  return decideRailEvent({
    ...base,
    now: deps.clock.now(),
    subscriptionId,
    customer: null,
    reconciledWithProvider: false,
    snapshot: (record) => (record ? revokedSnapshot(record, refund.at, reason) : null),
    noSnapshotReason: subscriptionId ? 'unknown_subscription' : 'payment_not_matched',
    railFacts: (record) => ({ stripe: { customerId: record?.stripe?.customerId ?? null, lastPaidAt: record?.stripe?.lastPaidAt ?? null, refund } }),
    details: { ...base.details, chargeId },
  });
}

function revokedSnapshot(record: SubscriptionRecord, at: number, reason: 'refund' | 'dispute_lost'): SubscriptionSnapshot {
  return {
    subscriptionId: record.subscriptionId,
    productIds: record.productIds,
    state: reason === 'dispute_lost' ? 'revoked' : 'refunded',
    periodStart: record.periodStart,
    periodEnd: record.periodEnd,
    accessUntil: at,
    revokedAt: at,
    willRenew: record.willRenew,
  };
}
