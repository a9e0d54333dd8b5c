/**
 * Issue 23: a rail notification (Stripe, App Store, Play) costs at most 6 store round trips, for
 * a new subscriber (the identity link creating the customer, then the decision) and for a renewal
 * of a known subscription, with every guarantee kept (one audit entry, claim-once, the decision
 * committed before the answer: asserted beside the count). Counted at the store edge
 * (store/counted.ts, `X-Tessera-Round-Trips`); test/foundation/roundTrips.test.ts holds that
 * count to the Firestore client's own RPCs.
 */
import { randomUUID } from 'node:crypto';
import { DAY } from '../../functions/src/clock';
import { linkHints } from '../../functions/src/identity/repository';
import { nextPurchaseToken, playPurchase, pushBody } from './support/googleFake';
import { signedNotification, transactionPayload } from './support/applePayloads';
import { stripeEvent, stripeIds, stripeSubscription } from './support/stripeFake';
import { activeKeys, auditOf, createRailsWorld, customerOf, entitlementsOf, PLAY_PACKAGE, postApple, postGoogle, postStripe, type RailsWorld } from './support/railsWorld';

const RAIL_NOTIFICATION_ROUND_TRIPS = 6;

let world: RailsWorld;
beforeAll(async () => {
  world = await createRailsWorld({ settings: { exposeRoundTrips: true } });
});
afterAll(async () => {
  await world.stop();
});

const roundTrips = (res: { headers: Record<string, string> }): number => Number(res.headers['x-tessera-round-trips']);
let tick = 0;
const later = () => world.service.clock.now() + (tick += 1000);

describe('rail notifications: store round trips', () => {
  it('Stripe: a new subscriber, an update of the subscription and a duplicate delivery', async () => {
    const customer = stripeIds.customer();
    const sub = stripeSubscription({ id: stripeIds.subscription(), customer });
    world.stripe.subscriptions.set(sub.id as string, sub);
    const created = stripeEvent('customer.subscription.created', sub, { created: Math.floor(later() / 1000) });
    const first = await postStripe(world, created);
    expect(first.body).toMatchObject({ decision: 'applied', reason: 'created_active', duplicate: false });
    expect(roundTrips(first)).toBeLessThanOrEqual(RAIL_NOTIFICATION_ROUND_TRIPS);
    const customerId = (await customerOf(world, 'test', 'stripe', customer))!;
    expect(activeKeys(await entitlementsOf(world, 'test', customerId))).toEqual(['pro']);
    expect(await auditOf(world, 'test', created.id as string)).toMatchObject({ decision: 'applied', customerId });

    const updated = stripeEvent('customer.subscription.updated', sub, { created: Math.floor(later() / 1000) });
    const renewal = await postStripe(world, updated);
    expect(renewal.body).toMatchObject({ duplicate: false });
    expect(roundTrips(renewal)).toBeLessThanOrEqual(RAIL_NOTIFICATION_ROUND_TRIPS);
    expect(await auditOf(world, 'test', updated.id as string)).toMatchObject({ customerId });

    const again = await postStripe(world, updated);
    expect(again.body).toMatchObject({ duplicate: true });
    expect(roundTrips(again)).toBeLessThanOrEqual(RAIL_NOTIFICATION_ROUND_TRIPS);
  });

  it('App Store: SUBSCRIBED for a new subscriber, then DID_RENEW', async () => {
    const txn = transactionPayload();
    const otx = txn.originalTransactionId as string;
    const subscribed = signedNotification(world.apple, { notificationType: 'SUBSCRIBED', subtype: 'INITIAL_BUY', transaction: txn, status: 1, signedDate: later() });
    const first = await postApple(world, subscribed.signedPayload);
    expect(first.body).toMatchObject({ decision: 'applied', reason: 'created_active', duplicate: false });
    expect(roundTrips(first)).toBeLessThanOrEqual(RAIL_NOTIFICATION_ROUND_TRIPS);
    const customerId = (await customerOf(world, 'test', 'apple_otx', otx))!;
    expect(activeKeys(await entitlementsOf(world, 'test', customerId))).toEqual(['pro']);

    const renewed = transactionPayload({ originalTransactionId: otx, expiresDate: later() + 60 * DAY });
    const renewal = await postApple(world, signedNotification(world.apple, { notificationType: 'DID_RENEW', transaction: renewed, status: 1, signedDate: later() }).signedPayload);
    expect(renewal.body).toMatchObject({ decision: 'applied', duplicate: false });
    expect(roundTrips(renewal)).toBeLessThanOrEqual(RAIL_NOTIFICATION_ROUND_TRIPS);
    expect(await customerOf(world, 'test', 'apple_otx', otx)).toBe(customerId);
  });

  it('App Store: a renewal signing the appAccountToken of a known user reads its token once', async () => {
    const token = randomUUID();
    const { customerId } = await linkHints(world.scope('test'), [{ kind: 'developer', id: `user_${token}` }, { kind: 'apple_aat', id: token }], 'self_asserted', world.service.clock.now());
    const txn = transactionPayload({ appAccountToken: token });
    const otx = txn.originalTransactionId as string;
    const first = await postApple(world, signedNotification(world.apple, { notificationType: 'SUBSCRIBED', subtype: 'INITIAL_BUY', transaction: txn, status: 1, signedDate: later() }).signedPayload);
    expect(first.body).toMatchObject({ decision: 'applied', duplicate: false });
    expect(await customerOf(world, 'test', 'apple_otx', otx)).toBe(customerId);

    const renewed = transactionPayload({ originalTransactionId: otx, appAccountToken: token, expiresDate: later() + 60 * DAY });
    const renewal = await postApple(world, signedNotification(world.apple, { notificationType: 'DID_RENEW', transaction: renewed, status: 1, signedDate: later() }).signedPayload);
    expect(renewal.body).toMatchObject({ decision: 'applied', duplicate: false });
    expect(roundTrips(renewal)).toBeLessThanOrEqual(RAIL_NOTIFICATION_ROUND_TRIPS);
    expect(await auditOf(world, 'test', renewal.body.eventId as string)).toMatchObject({ customerId });
  });

  it('Play: SUBSCRIPTION_PURCHASED for a new subscriber, then SUBSCRIPTION_RENEWED', async () => {
    const token = nextPurchaseToken();
    world.google.purchases.set(token, playPurchase({}));
    const notification = (type: number) => ({ version: '1.0', packageName: PLAY_PACKAGE, eventTimeMillis: String(later()), subscriptionNotification: { version: '1.0', notificationType: type, purchaseToken: token, subscriptionId: 'pro_monthly' } });
    const push = async (type: number) => postGoogle(world, pushBody(notification(type)), await world.google.pushToken({ audience: world.pushAudience }));
    const first = await push(4);
    expect(first.body).toMatchObject({ decision: 'applied', reason: 'created_active', duplicate: false });
    expect(roundTrips(first)).toBeLessThanOrEqual(RAIL_NOTIFICATION_ROUND_TRIPS);
    const customerId = (await customerOf(world, 'live', 'google_token', token))!;
    expect(activeKeys(await entitlementsOf(world, 'live', customerId))).toEqual(['pro']);

    world.google.purchases.set(token, playPurchase({ expiryTime: later() + 60 * DAY }));
    const renewal = await push(2);
    expect(renewal.body).toMatchObject({ decision: 'applied', duplicate: false });
    expect(roundTrips(renewal)).toBeLessThanOrEqual(RAIL_NOTIFICATION_ROUND_TRIPS);
  });
});
