/**
 * Guarantees of GET /v1/reports/revenue against seeded rail traffic with known answers: Stripe
 * invoices (one invoice delivered as `invoice.paid` and `invoice.payment_succeeded` counts once),
 * a full refund, two partial refunds (each adding only its own part) and a redelivered refund
 * event; App Store transactions seen by a notification and again by purchase sync (counted once),
 * and a refunded one; a Google Play purchase and its voiding (production, from Play's own
 * price); manual grants never count. Gross, refunds and net per currency and rail, MRR per
 * currency (a fully refunded period leaves it), and isolation between environments and projects.
 */
import { randomUUID } from 'node:crypto';
import { linkHints } from '../../functions/src/identity/repository';
import { lockHeaders, seedProject } from '../support/harness';
import { signedNotification, transactionPayload } from '../rails/support/applePayloads';
import { nextPurchaseToken, playPurchase, pushBody } from '../rails/support/googleFake';
import { stripeEvent, stripeIds, stripeSubscription } from '../rails/support/stripeFake';
import { createRailsWorld, PLAY_PACKAGE, postApple, postGoogle, postStripe, type RailsWorld } from '../rails/support/railsWorld';
import { DAY_MS, report, utcDay } from './support';

let world: RailsWorld;
const nowS = () => Math.floor(world.service.clock.now() / 1000);
let created = 0;
const nextCreated = () => nowS() + (created += 1);

async function stripe(type: string, object: Record<string, unknown>, extra: Record<string, unknown> = {}, id?: string) {
  const event = stripeEvent(type, object, { created: nextCreated(), id });
  Object.assign(event.data as Record<string, unknown>, extra);
  const res = await postStripe(world, event);
  expect(res.status).toBe(200);
  return event;
}

/** A Stripe subscription and its paid invoice (in minor units of `currency`, for `days`). */
async function paidInvoice(amount: number, currency: string, days: number) {
  const sub = stripeSubscription({ id: stripeIds.subscription(), customer: stripeIds.customer() });
  world.stripe.subscriptions.set(sub.id as string, sub);
  const paymentIntent = stripeIds.paymentIntent();
  const invoice = {
    id: stripeIds.invoice(),
    object: 'invoice',
    customer: sub.customer,
    status: 'paid',
    amount_paid: amount,
    currency,
    parent: { type: 'subscription_details', subscription_details: { subscription: sub.id } },
    payments: { object: 'list', data: [{ object: 'invoice_payment', payment: { type: 'payment_intent', payment_intent: paymentIntent } }] },
    status_transitions: { paid_at: nowS() },
    lines: { object: 'list', data: [{ object: 'line_item', amount, currency, period: { start: nowS(), end: nowS() + days * 86_400 } }] },
  };
  await stripe('invoice.paid', invoice);
  return { invoice, paymentIntent };
}

beforeAll(async () => {
  world = await createRailsWorld();
  const p = world.project;

  // Stripe, sandbox: $10.00 monthly (delivered twice), €120.00 yearly.
  const usd = await paidInvoice(1000, 'usd', 30);
  await stripe('invoice.payment_succeeded', usd.invoice);
  const eur = await paidInvoice(12000, 'eur', 365);
  // The $10.00 is refunded in full (the event delivered twice); the €120.00 in two parts: €5.00, then €3.00 more.
  const fullRefund = await stripe('charge.refunded', { id: stripeIds.charge(), object: 'charge', payment_intent: usd.paymentIntent, refunded: true, amount_refunded: 1000, currency: 'usd' });
  expect((await postStripe(world, fullRefund)).body.duplicate).toBe(true);
  const eurCharge = stripeIds.charge();
  await stripe('charge.refunded', { id: eurCharge, object: 'charge', payment_intent: eur.paymentIntent, refunded: false, amount_refunded: 500, currency: 'eur' }, { previous_attributes: { amount_refunded: 0 } });
  await stripe('charge.refunded', { id: eurCharge, object: 'charge', payment_intent: eur.paymentIntent, refunded: false, amount_refunded: 800, currency: 'eur' }, { previous_attributes: { amount_refunded: 500 } });

  // App Store, sandbox: a $9.99 monthly transaction seen by a notification and by purchase sync;
  // a second one refunded (its REFUND notification carries the revocation).
  const kept = transactionPayload({ productId: 'pro_monthly' });
  expect((await postApple(world, signedNotification(world.apple, { notificationType: 'SUBSCRIBED', transaction: kept }).signedPayload)).status).toBe(200);
  const sync = await world.service
    .request()
    .post('/v1/purchases/sync')
    .set({ Authorization: `Bearer ${p.ios.test.publishable}`, ...lockHeaders('ios') })
    .send({ rail: 'apple', signedTransactionInfo: world.apple.sign(kept) });
  expect(sync.status).toBe(200);
  const refunded = transactionPayload({ productId: 'pro_monthly' });
  await postApple(world, signedNotification(world.apple, { notificationType: 'SUBSCRIBED', transaction: refunded }).signedPayload);
  await postApple(world, signedNotification(world.apple, { notificationType: 'REFUND', transaction: { ...refunded, revocationDate: Date.now(), revocationReason: 0 } }).signedPayload);

  // Google Play, production: €4.99 charged, then the order voided.
  const token = nextPurchaseToken();
  const play = playPurchase({});
  const orderId = `GPA.3333-${randomUUID()}`;
  const item = (play.lineItems as Record<string, any>[])[0];
  item.latestSuccessfulOrderId = orderId;
  item.autoRenewingPlan.recurringPrice = { currencyCode: 'EUR', units: '4', nanos: 990_000_000 };
  world.google.purchases.set(token, play);
  const push = async (notification: Record<string, unknown>) => {
    const res = await postGoogle(world, pushBody(notification), await world.google.pushToken({ audience: world.pushAudience }));
    expect(res.status).toBe(200);
  };
  await push({ version: '1.0', packageName: PLAY_PACKAGE, eventTimeMillis: String(Date.now()), subscriptionNotification: { version: '1.0', notificationType: 4, purchaseToken: token, subscriptionId: 'pro_monthly' } });
  await push({ version: '1.0', packageName: PLAY_PACKAGE, eventTimeMillis: String(Date.now()), voidedPurchaseNotification: { purchaseToken: token, orderId, productType: 1, refundType: 1 } });

  // Manual grants: subscribers, never revenue.
  const { customerId } = await linkHints(world.scope('test'), [{ kind: 'developer', id: `user_${randomUUID()}` }], 'self_asserted', world.service.clock.now());
  const grant = await world.service.request().post(`/v1/server/customers/${customerId}/grant`).set('Authorization', `Bearer ${p.ios.test.secret}`).send({ entitlementKey: 'pro', duration: 'lifetime', reason: 'a manual grant is never revenue' });
  expect(grant.status).toBe(200);
}, 60_000);

afterAll(async () => {
  await world.stop();
});

/** The report's rows summed over periods, per currency and rail. */
function totals(body: any): Record<string, { gross: number; refunds: number; net: number }> {
  const out: Record<string, { gross: number; refunds: number; net: number }> = {};
  for (const row of body.data) {
    const key = `${row.currency} ${row.rail}`;
    out[key] ??= { gross: 0, refunds: 0, net: 0 };
    out[key].gross += row.gross;
    out[key].refunds += row.refunds;
    out[key].net += row.net;
  }
  return out;
}
const since = () => utcDay(world.service.clock.now()) - DAY_MS;

it('reports gross, refunds and net per currency and rail, each payment and refund once', async () => {
  const body = await report(world.service, world.project.ios.test.secret, `/v1/reports/revenue?from=${since()}`);
  expect(body).toMatchObject({ object: 'list', env: 'sandbox', granularity: 'day' });
  expect(totals(body)).toEqual({
    'EUR stripe': { gross: 12000, refunds: 800, net: 11200 },
    'USD apple': { gross: 1998, refunds: 999, net: 999 },
    'USD stripe': { gross: 1000, refunds: 1000, net: 0 },
  });
  expect(body.data.every((row: any) => Number.isInteger(row.gross) && Number.isInteger(row.t))).toBe(true);
});

it('reports MRR per currency: a yearly plan counts a twelfth, a fully refunded period nothing', async () => {
  const body = await report(world.service, world.project.ios.test.secret, '/v1/reports/revenue');
  expect(body.mrr).toEqual([
    { currency: 'EUR', amount: 1000 },
    { currency: 'USD', amount: 999 },
  ]);
});

it('keeps production (Play) apart from sandbox, and other projects out', async () => {
  const live = await report(world.service, world.project.ios.live.secret, `/v1/reports/revenue?from=${since()}`);
  expect(live.env).toBe('production');
  expect(totals(live)).toEqual({ 'EUR google': { gross: 499, refunds: 499, net: 0 } });
  expect(live.mrr).toEqual([]);
  const other = await seedProject(world.service);
  const empty = await report(world.service, other.ios.test.secret, `/v1/reports/revenue?from=${since()}`);
  expect(empty.data).toEqual([]);
  expect(empty.mrr).toEqual([]);
});
