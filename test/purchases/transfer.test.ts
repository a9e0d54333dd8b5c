/**
 * Subscription transfers (issue 19 §1): only a verified purchase moves a subscription between
 * people, per the project's setting (`tessera subscription-transfer set`, modelled on
 * RevenueCat's restore behaviour). With `keep` (the default) a restore by another app user on the
 * same store account leaves the subscription with its owner, and the caller learns only its own
 * customer; with `transfer` the record and grants move to the caller, audited as
 * `customer.subscription_transferred` (both customers named) and sent as that webhook event. A
 * bare hint (identify with the owner's appAccountToken) moves nothing whatever the setting. An
 * erased owner keeps no claim: its purchase transfers on proof, whatever the setting. The same
 * holds for the rails' verified notifications (App Store: a newly signed appAccountToken; Stripe:
 * the user its subscription names; Play: an erased owner).
 */
import { randomUUID } from 'node:crypto';
import type { AuditEntry } from '../../functions/src/audit/model';
import { DAY } from '../../functions/src/clock';
import { syncEventId } from '../../functions/src/purchases/syncService';
import { operatorCommands } from '../support/operatorCommands';
import { lockHeaders } from '../support/harness';
import { signedNotification, transactionPayload } from '../rails/support/applePayloads';
import { activeKeys, auditOf, createRailsWorld, customerOf, entitlementsOf, PLAY_PACKAGE, postApple, postGoogle, postStripe, subscriptionOf, type RailsWorld } from '../rails/support/railsWorld';
import { stripeEvent, stripeIds, stripeSubscription } from '../rails/support/stripeFake';
import { nextPurchaseToken, playPurchase, pushBody } from '../rails/support/googleFake';
import { purchaseTokenHash } from '../../functions/src/rails/http/googleNotification';
import { linkHints } from '../../functions/src/identity/repository';
import { eventsOf } from '../webhooks/support/outbox';

let world: RailsWorld;
const { tessera } = operatorCommands(() => world.service);
beforeAll(async () => {
  world = await createRailsWorld();
});
afterAll(async () => {
  await world.stop();
});
beforeEach(() => world.service.clock.advance(61_000)); // a refilled alias bucket per test

const publishable = () => ({ Authorization: `Bearer ${world.project.ios.test.publishable}`, ...lockHeaders('ios') });
const identify = (body: object) => world.service.request().post('/v1/identify').set(publishable()).send(body);
const sync = (body: Record<string, unknown>) => world.service.request().post('/v1/purchases/sync').set(publishable()).send({ rail: 'apple', ...body });
const setBehavior = (behavior: string) => tessera('subscription-transfer set', { project: world.project.projectId, behavior });
const transfersOf = async (customerId: string): Promise<AuditEntry[]> =>
  (await world.scope('test').collection('audit').where('eventType', '==', 'customer.subscription_transferred').where('customerId', '==', customerId).get()).docs.map((d) => d.data() as AuditEntry);

/** An owner who bought `pro` on the App Store (appAccountToken set at purchase), and a second app user on the same store account. */
async function purchaseAndNewcomer(name: string) {
  const ownerToken = randomUUID();
  const owner = (await identify({ userId: `${name}-owner`, anonymousId: `${name}-owner-phone`, appAccountToken: ownerToken })).body.serviceCustomerId as string;
  const purchase = transactionPayload({ appAccountToken: ownerToken, expiresDate: Date.now() + 30 * DAY });
  const bought = await sync({ signedTransactionInfo: world.apple.sign(purchase), appAccountToken: ownerToken });
  expect(bought.body).toMatchObject({ serviceCustomerId: owner, entitlements: [expect.objectContaining({ key: 'pro', isActive: true })] });
  const newcomerToken = randomUUID();
  const newcomer = (await identify({ userId: `${name}-newcomer`, anonymousId: `${name}-newcomer-phone`, appAccountToken: newcomerToken })).body.serviceCustomerId as string;
  expect(newcomer).not.toBe(owner);
  const otx = purchase.originalTransactionId as string;
  // The store account restores the same subscription: a new signed transaction of it, signed with the owner's token.
  const restore = () => world.apple.sign(transactionPayload({ originalTransactionId: otx, appAccountToken: ownerToken, expiresDate: Date.now() + 30 * DAY, signedDate: Date.now() + 1_000 }));
  return { owner, ownerToken, newcomer, newcomerToken, otx, restore };
}

it('defaults to keep: a restore by another app user leaves the subscription with its owner and tells the caller only about itself', async () => {
  const w = await purchaseAndNewcomer('keep');
  const res = await sync({ signedTransactionInfo: w.restore(), appAccountToken: w.newcomerToken });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ object: 'purchase_result', serviceCustomerId: w.newcomer, env: 'sandbox', entitlements: [] });
  expect(activeKeys(await entitlementsOf(world, 'test', w.owner))).toEqual(['pro']);
  expect(await entitlementsOf(world, 'test', w.newcomer)).toEqual([]);
  expect((await subscriptionOf(world, 'test', 'apple', w.otx))!.customerId).toBe(w.owner);
  expect(await transfersOf(w.newcomer)).toEqual([]);
});

it('transfer: the verified restore moves the record and grants to the caller, audited with both customers and sent as a webhook event', async () => {
  const w = await purchaseAndNewcomer('move');
  expect(await setBehavior('transfer')).toMatchObject({ projectId: world.project.projectId, behavior: 'transfer' });
  try {
    // A bare hint moves nothing: identify with the owner's token is a merge conflict.
    expect((await identify({ userId: 'move-newcomer', anonymousId: 'move-newcomer-phone', appAccountToken: w.ownerToken })).body).toMatchObject({ serviceCustomerId: w.newcomer, mergePending: true });
    expect((await subscriptionOf(world, 'test', 'apple', w.otx))!.customerId).toBe(w.owner);

    const restore = transactionPayload({ originalTransactionId: w.otx, appAccountToken: w.ownerToken, expiresDate: Date.now() + 30 * DAY, signedDate: Date.now() + 1_000 });
    const res = await sync({ signedTransactionInfo: world.apple.sign(restore), appAccountToken: w.newcomerToken });
    expect(res.body).toMatchObject({ serviceCustomerId: w.newcomer, entitlements: [expect.objectContaining({ key: 'pro', isActive: true })] });
    expect(activeKeys(await entitlementsOf(world, 'test', w.newcomer))).toEqual(['pro']);
    expect(activeKeys(await entitlementsOf(world, 'test', w.owner))).toEqual([]);
    expect((await subscriptionOf(world, 'test', 'apple', w.otx))!.customerId).toBe(w.newcomer);

    const [audit] = await transfersOf(w.newcomer);
    expect(audit).toMatchObject({
      eventId: expect.stringMatching(/^srv_transfer_/),
      rail: 'apple',
      subscriptionId: w.otx,
      decision: 'applied',
      signatureVerified: true,
      details: { fromCustomerId: w.owner, toCustomerId: w.newcomer, reason: 'transfer_setting', proofEventId: syncEventId(restore.transactionId as string) },
    });
    expect(await auditOf(world, 'test', syncEventId(restore.transactionId as string))).toMatchObject({ customerId: w.newcomer, details: expect.objectContaining({ transferredFrom: w.owner, transferReason: 'transfer_setting' }) });
    const events = (await eventsOf(world.service, world.project.projectId, 'test', w.newcomer)).filter((e) => e.type === 'customer.subscription_transferred');
    expect(events.map((e) => e.payload.data)).toEqual([
      { serviceCustomerId: w.newcomer, fromCustomerId: w.owner, rail: 'apple', subscriptionId: w.otx, reason: 'transfer_setting', cause: { rail: 'apple', auditEventId: audit.eventId } },
    ]);

    // Re-sending the same proof changes nothing more.
    await sync({ signedTransactionInfo: world.apple.sign(restore), appAccountToken: w.newcomerToken });
    expect(await transfersOf(w.newcomer)).toHaveLength(1);
  } finally {
    await setBehavior('keep');
  }
});

it('an erased owner keeps no claim: its purchase transfers on proof even with keep', async () => {
  const w = await purchaseAndNewcomer('erased');
  const secret = { Authorization: `Bearer ${world.project.ios.test.secret}` };
  expect((await world.service.request().post('/v1/identity/forget').set(secret).send({ customerId: w.owner })).status).toBe(200);
  await world.service.tasks.drain();

  const res = await sync({ signedTransactionInfo: w.restore(), appAccountToken: w.newcomerToken });
  expect(res.body).toMatchObject({ serviceCustomerId: w.newcomer, entitlements: [expect.objectContaining({ key: 'pro', isActive: true })] });
  expect((await subscriptionOf(world, 'test', 'apple', w.otx))!.customerId).toBe(w.newcomer);
  expect(await transfersOf(w.newcomer)).toEqual([expect.objectContaining({ details: expect.objectContaining({ fromCustomerId: w.owner, reason: 'owner_erased' }) })]);
});

it('Stripe: a verified subscription whose metadata names another user never joins that user to the owner; it moves only with transfer', async () => {
  const scope = world.scope('test');
  const cus = stripeIds.customer();
  const owner = (await linkHints(scope, [{ kind: 'developer', id: 'card-owner-user' }, { kind: 'stripe', id: cus }], 'self_asserted', world.service.clock.now())).customerId!;
  const newcomer = (await linkHints(scope, [{ kind: 'developer', id: 'card-next-user' }], 'self_asserted', world.service.clock.now())).customerId!;
  const sub = stripeSubscription({ id: stripeIds.subscription(), customer: cus });
  world.stripe.subscriptions.set(sub.id as string, sub);
  let created = Math.floor(world.service.clock.now() / 1000);
  expect((await postStripe(world, stripeEvent('customer.subscription.created', sub, { created: (created += 1) }))).body.decision).toBe('applied');
  expect(activeKeys(await entitlementsOf(world, 'test', owner))).toEqual(['pro']);

  // The developer's checkout now names another user on the same card-processor customer.
  const renamed = { ...sub, metadata: { developerUserId: 'card-next-user' } };
  world.stripe.subscriptions.set(sub.id as string, renamed);
  await postStripe(world, stripeEvent('customer.subscription.updated', renamed, { created: (created += 1) }));
  expect((await subscriptionOf(world, 'test', 'stripe', sub.id as string))!.customerId).toBe(owner); // keep
  expect(await customerOf(world, 'test', 'developer', 'card-next-user')).toBe(newcomer); // never joined the owner
  expect(await customerOf(world, 'test', 'stripe', cus)).toBe(owner);
  expect(await entitlementsOf(world, 'test', newcomer)).toEqual([]);

  await setBehavior('transfer');
  try {
    world.service.clock.advance(1_000);
    await postStripe(world, stripeEvent('customer.subscription.updated', renamed, { created: (created += 1) }));
    expect((await subscriptionOf(world, 'test', 'stripe', sub.id as string))!.customerId).toBe(newcomer);
    expect(activeKeys(await entitlementsOf(world, 'test', newcomer))).toEqual(['pro']);
    expect(activeKeys(await entitlementsOf(world, 'test', owner))).toEqual([]);
    expect(await transfersOf(newcomer)).toEqual([expect.objectContaining({ rail: 'stripe', details: expect.objectContaining({ fromCustomerId: owner, toCustomerId: newcomer, reason: 'transfer_setting' }) })]);
  } finally {
    await setBehavior('keep');
  }
});

it('App Store notifications: a transaction signing an appAccountToken new to the subscription moves it only with transfer; the token it already holds never moves it back', async () => {
  const ownerToken = randomUUID();
  const newcomerToken = randomUUID();
  const owner = (await identify({ userId: 'note-owner', anonymousId: 'note-owner-phone', appAccountToken: ownerToken })).body.serviceCustomerId as string;
  const newcomer = (await identify({ userId: 'note-newcomer', anonymousId: 'note-newcomer-phone', appAccountToken: newcomerToken })).body.serviceCustomerId as string;
  let signedDate = Date.now();
  const notify = (notificationType: string, transaction: Record<string, unknown>, subtype?: string) =>
    postApple(world, signedNotification(world.apple, { notificationType, subtype, transaction, status: 1, signedDate: (signedDate += 1_000) }).signedPayload);
  const first = transactionPayload({ appAccountToken: ownerToken, expiresDate: Date.now() + 30 * DAY });
  const otx = first.originalTransactionId as string;
  const next = (token: string) => transactionPayload({ originalTransactionId: otx, appAccountToken: token, expiresDate: Date.now() + 30 * DAY, signedDate: signedDate + 500 });
  expect((await notify('SUBSCRIBED', first, 'INITIAL_BUY')).body.decision).toBe('applied');
  expect((await subscriptionOf(world, 'test', 'apple', otx))!.customerId).toBe(owner);

  // keep: the newcomer's purchase on the same store subscription stays with the owner.
  await notify('DID_CHANGE_RENEWAL_PREF', next(newcomerToken), 'UPGRADE');
  expect((await subscriptionOf(world, 'test', 'apple', otx))!.customerId).toBe(owner);
  expect(await entitlementsOf(world, 'test', newcomer)).toEqual([]);

  await setBehavior('transfer');
  try {
    await notify('DID_RENEW', next(ownerToken)); // the owner's own token: nothing moves
    expect((await subscriptionOf(world, 'test', 'apple', otx))!.customerId).toBe(owner);
    await notify('DID_CHANGE_RENEWAL_PREF', next(newcomerToken), 'UPGRADE');
    expect((await subscriptionOf(world, 'test', 'apple', otx))!.customerId).toBe(newcomer);
    expect(activeKeys(await entitlementsOf(world, 'test', newcomer))).toEqual(['pro']);
    expect(activeKeys(await entitlementsOf(world, 'test', owner))).toEqual([]);
    await notify('DID_RENEW', next(newcomerToken));
    expect((await subscriptionOf(world, 'test', 'apple', otx))!.customerId).toBe(newcomer);
    expect(await transfersOf(newcomer)).toEqual([expect.objectContaining({ rail: 'apple', details: expect.objectContaining({ fromCustomerId: owner, toCustomerId: newcomer, reason: 'transfer_setting' }) })]);
  } finally {
    await setBehavior('keep');
  }
});

it('Play: an erased owner keeps no claim; the next verified notification gives the purchase to the customer its identifiers resolve to now', async () => {
  const live = world.scope('live');
  const owner = (await linkHints(live, [{ kind: 'developer', id: 'play-owner-user' }], 'self_asserted', world.service.clock.now())).customerId!;
  const token = nextPurchaseToken();
  world.google.purchases.set(token, playPurchase({ obfuscatedAccountId: owner, expiryTime: world.service.clock.now() + 30 * DAY }));
  let eventTime = world.service.clock.now();
  const push = async (type: number) => {
    const body = pushBody({ version: '1.0', packageName: PLAY_PACKAGE, eventTimeMillis: String((eventTime += 1_000)), subscriptionNotification: { version: '1.0', notificationType: type, purchaseToken: token, subscriptionId: 'pro_monthly' } });
    return postGoogle(world, body, await world.google.pushToken({ audience: world.pushAudience }));
  };
  expect((await push(4)).body.decision).toBe('applied');
  const subscriptionId = purchaseTokenHash(token);
  expect((await subscriptionOf(world, 'live', 'google', subscriptionId))!.customerId).toBe(owner);

  const secret = { Authorization: `Bearer ${world.project.ios.live.secret}` };
  expect((await world.service.request().post('/v1/identity/forget').set(secret).send({ customerId: owner })).status).toBe(200);
  await world.service.tasks.drain();

  expect((await push(2)).status).toBe(200); // SUBSCRIPTION_RENEWED
  const heir = (await subscriptionOf(world, 'live', 'google', subscriptionId))!.customerId!;
  expect(heir).not.toBe(owner);
  expect(await customerOf(world, 'live', 'google_token', token)).toBe(heir);
  expect(activeKeys(await entitlementsOf(world, 'live', heir))).toEqual(['pro']);
  const transfers = (await live.collection('audit').where('eventType', '==', 'customer.subscription_transferred').where('customerId', '==', heir).get()).docs.map((d) => d.data());
  expect(transfers).toEqual([expect.objectContaining({ rail: 'google', details: expect.objectContaining({ fromCustomerId: owner, toCustomerId: heir, reason: 'owner_erased' }) })]);
});

it('Play: a verified purchase whose obfuscated account id now names another customer stays with its owner under keep and moves only with transfer', async () => {
  const live = world.scope('live');
  const owner = (await linkHints(live, [{ kind: 'developer', id: 'play-keep-owner' }], 'self_asserted', world.service.clock.now())).customerId!;
  const newcomer = (await linkHints(live, [{ kind: 'developer', id: 'play-keep-newcomer' }], 'self_asserted', world.service.clock.now())).customerId!;
  const token = nextPurchaseToken();
  world.google.purchases.set(token, playPurchase({ obfuscatedAccountId: owner, expiryTime: world.service.clock.now() + 30 * DAY }));
  let eventTime = world.service.clock.now();
  const push = async (type: number) => {
    const body = pushBody({ version: '1.0', packageName: PLAY_PACKAGE, eventTimeMillis: String((eventTime += 1_000)), subscriptionNotification: { version: '1.0', notificationType: type, purchaseToken: token, subscriptionId: 'pro_monthly' } });
    return postGoogle(world, body, await world.google.pushToken({ audience: world.pushAudience }));
  };
  expect((await push(4)).body.decision).toBe('applied'); // SUBSCRIPTION_PURCHASED
  const subscriptionId = purchaseTokenHash(token);
  expect((await subscriptionOf(world, 'live', 'google', subscriptionId))!.customerId).toBe(owner);

  // Play now reports the purchase under the newcomer's account id (re-read on every notification).
  world.google.purchases.set(token, playPurchase({ obfuscatedAccountId: newcomer, expiryTime: world.service.clock.now() + 30 * DAY }));
  expect((await push(2)).status).toBe(200); // SUBSCRIPTION_RENEWED, keep
  expect((await subscriptionOf(world, 'live', 'google', subscriptionId))!.customerId).toBe(owner);
  expect(await entitlementsOf(world, 'live', newcomer)).toEqual([]);

  await setBehavior('transfer');
  try {
    expect((await push(2)).status).toBe(200);
    expect((await subscriptionOf(world, 'live', 'google', subscriptionId))!.customerId).toBe(newcomer);
    expect(activeKeys(await entitlementsOf(world, 'live', newcomer))).toEqual(['pro']);
    expect(activeKeys(await entitlementsOf(world, 'live', owner))).toEqual([]);
    const transfers = (await live.collection('audit').where('eventType', '==', 'customer.subscription_transferred').where('customerId', '==', newcomer).get()).docs.map((d) => d.data());
    expect(transfers).toEqual([expect.objectContaining({ rail: 'google', details: expect.objectContaining({ fromCustomerId: owner, toCustomerId: newcomer, reason: 'transfer_setting' }) })]);
  } finally {
    await setBehavior('keep');
  }
});

it('validates the setting', async () => {
  await expect(setBehavior('sometimes')).rejects.toMatchObject({ code: 'invalid_argument' });
});
