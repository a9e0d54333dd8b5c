/**
 * Issue 23: a rail notification's store round trips, exactly, with every guarantee kept (one
 * audit entry, claim-once, the decision committed before the answer: asserted beside the
 * count). Counted at the store edge (store/counted.ts, `X-Tessera-Round-Trips`);
 * test/foundation/roundTrips.test.ts holds that count to the Firestore client's own RPCs.
 *
 * - a new subscriber: 4 — the target (1), the identifiers' index entries with the event's audit
 *   entry (1), the decision's transaction creating the customer with the decision (its read and
 *   commit: 2);
 * - a renewal: 5 — the target, the same read, the customer's grants read ahead (1), the
 *   transaction (2);
 * - a duplicate delivery: 2 — the target and that read (the audit entry exists: answered from it).
 */
import { randomUUID } from 'node:crypto';
import { DAY } from '../../functions/src/clock';
import { linkHints } from '../../functions/src/identity/repository';
import { nextPurchaseToken, playPurchase, pushBody } from './support/googleFake';
import { signedNotification, transactionPayload } from './support/applePayloads';
import { stripeEvent, stripeIds, stripeSubscription } from './support/stripeFake';
import { activeKeys, auditOf, createRailsWorld, customerOf, entitlementsOf, PLAY_PACKAGE, postApple, postGoogle, postStripe, type RailsWorld } from './support/railsWorld';

const NEW_SUBSCRIBER = 4;
const RENEWAL = 5;
const DUPLICATE = 2;
/** A first purchase naming an identifier of a known user beside new ones (conflict rules apply: the identity repository links). */
const LINKED_TO_KNOWN_USER = 9;

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
    expect(roundTrips(first)).toBe(NEW_SUBSCRIBER);
    const customerId = (await customerOf(world, 'test', 'stripe', customer))!;
    expect(activeKeys(await entitlementsOf(world, 'test', customerId))).toEqual(['pro']);
    expect(await auditOf(world, 'test', created.id as string)).toMatchObject({ decision: 'applied', customerId });

    const updated = stripeEvent('customer.subscription.updated', sub, { created: Math.floor(later() / 1000) });
    const renewal = await postStripe(world, updated);
    expect(renewal.body).toMatchObject({ duplicate: false });
    expect(roundTrips(renewal)).toBe(RENEWAL);
    expect(await auditOf(world, 'test', updated.id as string)).toMatchObject({ customerId });

    const again = await postStripe(world, updated);
    expect(again.body).toMatchObject({ duplicate: true });
    expect(roundTrips(again)).toBe(DUPLICATE);
  });

  it('App Store: SUBSCRIBED for a new subscriber, then DID_RENEW', async () => {
    const txn = transactionPayload();
    const otx = txn.originalTransactionId as string;
    const subscribed = signedNotification(world.apple, { notificationType: 'SUBSCRIBED', subtype: 'INITIAL_BUY', transaction: txn, status: 1, signedDate: later() });
    const first = await postApple(world, subscribed.signedPayload);
    expect(first.body).toMatchObject({ decision: 'applied', reason: 'created_active', duplicate: false });
    expect(roundTrips(first)).toBe(NEW_SUBSCRIBER);
    const customerId = (await customerOf(world, 'test', 'apple_otx', otx))!;
    expect(activeKeys(await entitlementsOf(world, 'test', customerId))).toEqual(['pro']);

    const renewed = transactionPayload({ originalTransactionId: otx, expiresDate: later() + 60 * DAY });
    const didRenew = signedNotification(world.apple, { notificationType: 'DID_RENEW', transaction: renewed, status: 1, signedDate: later() }).signedPayload;
    const renewal = await postApple(world, didRenew);
    expect(renewal.body).toMatchObject({ decision: 'applied', duplicate: false });
    expect(roundTrips(renewal)).toBe(RENEWAL);
    expect(await customerOf(world, 'test', 'apple_otx', otx)).toBe(customerId);

    const again = await postApple(world, didRenew);
    expect(again.body).toMatchObject({ decision: 'applied', duplicate: true });
    expect(roundTrips(again)).toBe(DUPLICATE);
  });

  it('App Store: a renewal signing the appAccountToken of a known user reads its token once', async () => {
    const token = randomUUID();
    const { customerId } = await linkHints(world.scope('test'), [{ kind: 'developer', id: `user_${token}` }, { kind: 'apple_aat', id: token }], 'self_asserted', world.service.clock.now());
    const txn = transactionPayload({ appAccountToken: token });
    const otx = txn.originalTransactionId as string;
    const first = await postApple(world, signedNotification(world.apple, { notificationType: 'SUBSCRIBED', subtype: 'INITIAL_BUY', transaction: txn, status: 1, signedDate: later() }).signedPayload);
    expect(first.body).toMatchObject({ decision: 'applied', duplicate: false });
    // The token is known and the originalTransactionId is not: the identity repository's link
    // transaction (entries, their customer, commit: 3) joins them, the token's customer is read,
    // then the grants and the decision: 1 + 1 + 3 + 1 + 1 + 2.
    expect(roundTrips(first)).toBe(LINKED_TO_KNOWN_USER);
    expect(await customerOf(world, 'test', 'apple_otx', otx)).toBe(customerId);

    const renewed = transactionPayload({ originalTransactionId: otx, appAccountToken: token, expiresDate: later() + 60 * DAY });
    const renewal = await postApple(world, signedNotification(world.apple, { notificationType: 'DID_RENEW', transaction: renewed, status: 1, signedDate: later() }).signedPayload);
    expect(renewal.body).toMatchObject({ decision: 'applied', duplicate: false });
    expect(roundTrips(renewal)).toBe(RENEWAL);
    expect(await auditOf(world, 'test', renewal.body.eventId as string)).toMatchObject({ customerId });
  });

  it('Play: SUBSCRIPTION_PURCHASED for a new subscriber, then SUBSCRIPTION_RENEWED', async () => {
    const token = nextPurchaseToken();
    world.google.purchases.set(token, playPurchase({}));
    const notification = (type: number) => ({ version: '1.0', packageName: PLAY_PACKAGE, eventTimeMillis: String(later()), subscriptionNotification: { version: '1.0', notificationType: type, purchaseToken: token, subscriptionId: 'pro_monthly' } });
    const push = async (type: number) => postGoogle(world, pushBody(notification(type)), await world.google.pushToken({ audience: world.pushAudience }));
    const first = await push(4);
    expect(first.body).toMatchObject({ decision: 'applied', reason: 'created_active', duplicate: false });
    expect(roundTrips(first)).toBe(NEW_SUBSCRIBER);
    const customerId = (await customerOf(world, 'live', 'google_token', token))!;
    expect(activeKeys(await entitlementsOf(world, 'live', customerId))).toEqual(['pro']);

    world.google.purchases.set(token, playPurchase({ expiryTime: later() + 60 * DAY }));
    const renewedBody = pushBody(notification(2));
    const renewal = await postGoogle(world, renewedBody, await world.google.pushToken({ audience: world.pushAudience }));
    expect(renewal.body).toMatchObject({ decision: 'applied', duplicate: false });
    expect(roundTrips(renewal)).toBe(RENEWAL);

    const again = await postGoogle(world, renewedBody, await world.google.pushToken({ audience: world.pushAudience }));
    expect(again.body).toMatchObject({ decision: 'applied', duplicate: true });
    expect(roundTrips(again)).toBe(DUPLICATE);
  });
});
