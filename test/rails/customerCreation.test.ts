/**
 * Issue 23, sixth pass: a new subscriber's customer is created by the decision's own
 * transaction (rails/customers.ts, rails/decision.ts), and a known one is resolved from one
 * direct read that the transaction confirms. The identity rules hold as they did with the
 * identity repository's link transaction first:
 * - racing first notifications of one new subscriber make ONE customer (on one instance, and
 *   across instances, where only the store's transaction decides);
 * - identifiers linked, or a customer erased, between the read and the decision's transaction:
 *   the transaction writes nothing, and the customer is resolved again through the identity
 *   repository (so its rules decide, not a stale read);
 * - a notification creates its customer in its own project and environment only, and an
 *   unverified one creates nothing.
 */
import { randomUUID } from 'node:crypto';
import type { CustomerRecord } from '../../functions/src/customers/model';
import type { GrantRecord } from '../../functions/src/entitlements/model';
import * as identityRepository from '../../functions/src/identity/repository';
import { decideForRailCustomer } from '../../functions/src/rails/customerDecision';
import { resolveRailCustomer, type RailCustomer, type RailCustomerHints } from '../../functions/src/rails/customers';
import { EnvScope } from '../../functions/src/store/scope';
import { writeQueue } from '../../functions/src/store/writeQueue';
import { expectError, seedProject } from '../support/harness';
import { nextPurchaseToken, playPurchase, pushBody } from './support/googleFake';
import { stripeEvent, stripeIds, stripeSubscription } from './support/stripeFake';
import { decideStripeSubscription } from './support/stripeDecision';
import { auditOf, createRailsWorld, customerOf, PLAY_PACKAGE, postGoogle, postStripe, storedDocuments, subscriptionOf, type RailsWorld } from './support/railsWorld';

let world: RailsWorld;
beforeAll(async () => {
  world = await createRailsWorld();
});
afterAll(async () => {
  await world.stop();
});

let tick = 0;
const later = () => world.service.clock.now() + (tick += 1000);

/** Customers holding the identifier in their identity mirror (whatever the index says). */
async function customersHolding(env: 'test' | 'live', kind: string, id: string): Promise<CustomerRecord[]> {
  const snapshot = await world.scope(env).collection('customers').where('identities', 'array-contains', { kind, id }).get();
  return snapshot.docs.map((doc) => doc.data() as CustomerRecord);
}

/**
 * Two subscriptions of one new Stripe customer, both announced at once: both read the Stripe
 * customer id unknown, one creates the customer, the other's transaction finds the entry and is
 * resolved again through the identity repository (a link, which must happen: else they never raced).
 */
async function racingFirstNotifications() {
  const customer = stripeIds.customer();
  const subs = [0, 1].map(() => stripeSubscription({ id: stripeIds.subscription(), customer }));
  for (const sub of subs) world.stripe.subscriptions.set(sub.id as string, sub);
  const created = Math.floor(later() / 1000);
  const relinks = jest.spyOn(identityRepository, 'linkHints');
  let results: Awaited<ReturnType<typeof postStripe>>[];
  try {
    results = await Promise.all(subs.map((sub) => postStripe(world, stripeEvent('customer.subscription.created', sub, { created }))));
    expect(relinks).toHaveBeenCalledTimes(1);
  } finally {
    relinks.mockRestore();
  }
  for (const res of results) expect(res.body).toMatchObject({ decision: 'applied', reason: 'created_active', duplicate: false });
  const customerId = await customerOf(world, 'test', 'stripe', customer);
  expect(customerId).not.toBeNull();
  expect((await customersHolding('test', 'stripe', customer)).map((c) => c.customerId)).toEqual([customerId]);
  for (const sub of subs) expect((await subscriptionOf(world, 'test', 'stripe', sub.id as string))?.customerId).toBe(customerId);
  const grants = (await world.scope('test').collection('grants').where('customerId', '==', customerId).get()).docs.map((d) => d.data() as GrantRecord);
  expect(grants.map((g) => g.source.subscriptionId).sort()).toEqual(subs.map((s) => s.id as string).sort());
}

/** A decision about a Stripe subscription for `customer`, as the Stripe handler makes it. */
function decideFor(scope: EnvScope, customer: RailCustomer | null, subscriptionId: string) {
  return decideStripeSubscription(world, { scope, customer, subscriptionId, now: world.service.clock.now(), claimant: () => customer?.customerId ?? null });
}

/** Decides with `stale` as the first resolution (read before the store changed), recording which resolutions ran. */
async function decideWithStale(scope: EnvScope, hints: RailCustomerHints, stale: RailCustomer) {
  const resolutions: string[] = [];
  const subscriptionId = stripeIds.subscription();
  const outcome = await decideForRailCustomer(
    async (relink) => {
      resolutions.push(relink ? 'relink' : 'read');
      return relink ? resolveRailCustomer(scope, hints, { now: world.service.clock.now(), relink }) : { customer: stale, audited: null };
    },
    (customer) => decideFor(scope, customer, subscriptionId),
  );
  return { outcome, resolutions, subscriptionId };
}

describe('a new subscriber: one customer, created with the decision', () => {
  it('two first notifications of one new subscriber racing on one instance make one customer', async () => {
    await racingFirstNotifications();
  });

  it('racing across instances (no per-instance queue: only the store’s transaction decides) still makes one customer', async () => {
    const queued = jest.spyOn(writeQueue, 'run').mockImplementation((_keys, fn) => fn());
    try {
      await racingFirstNotifications();
    } finally {
      queued.mockRestore();
    }
  });

  it('identifiers linked after they were read absent: the transaction writes nothing and the decision goes to the linked customer', async () => {
    const scope = world.scope('test');
    const hints: RailCustomerHints = { rail: [{ kind: 'stripe', id: stripeIds.customer() }] };
    const { customer: stale } = await resolveRailCustomer(scope, hints, { now: world.service.clock.now() });
    expect(stale?.check?.kind).toBe('create');
    // Meanwhile an identify (or another notification) links the Stripe customer id to a user.
    const { customerId: linked } = await identityRepository.linkHints(scope, [{ kind: 'developer', id: `user_${randomUUID()}` }, ...hints.rail], 'self_asserted', world.service.clock.now());

    const { outcome, resolutions, subscriptionId } = await decideWithStale(scope, hints, stale!);
    expect(resolutions).toEqual(['read', 'relink']);
    expect(outcome).toMatchObject({ decision: 'applied', customerId: linked });
    expect((await subscriptionOf(world, 'test', 'stripe', subscriptionId))?.customerId).toBe(linked);
    // The customer the stale read would have created does not exist, and the entry still names the user's customer.
    expect((await scope.doc('customers', stale!.customerId).get()).exists).toBe(false);
    expect(await customerOf(world, 'test', 'stripe', hints.rail[0].id)).toBe(linked);
  });

  it('a known customer erased after the read: the transaction writes nothing and the identity repository gives the identifiers a new customer', async () => {
    const scope = world.scope('test');
    const hints: RailCustomerHints = { rail: [{ kind: 'stripe', id: stripeIds.customer() }] };
    const { customerId: erased } = await identityRepository.linkHints(scope, hints.rail, 'rail', world.service.clock.now());
    const { customer: stale } = await resolveRailCustomer(scope, hints, { now: world.service.clock.now() });
    expect(stale).toMatchObject({ customerId: erased, check: { kind: 'active' } });
    await scope.doc('customers', erased!).update({ status: 'erased' });

    const { outcome, resolutions } = await decideWithStale(scope, hints, stale!);
    expect(resolutions).toEqual(['read', 'relink']);
    expect(outcome.decision).toBe('applied');
    expect(outcome.customerId).not.toBe(erased);
    expect(await customerOf(world, 'test', 'stripe', hints.rail[0].id)).toBe(outcome.customerId);
    expect((await scope.collection('grants').where('customerId', '==', erased).get()).size).toBe(0);
  });

  it('a duplicate delivery of a new subscriber’s event creates nothing more', async () => {
    const customer = stripeIds.customer();
    const sub = stripeSubscription({ id: stripeIds.subscription(), customer });
    world.stripe.subscriptions.set(sub.id as string, sub);
    const event = stripeEvent('customer.subscription.created', sub, { created: Math.floor(later() / 1000) });
    expect((await postStripe(world, event)).body).toMatchObject({ duplicate: false });
    const before = await storedDocuments(world);
    expect((await postStripe(world, event)).body).toMatchObject({ decision: 'applied', duplicate: true });
    expect(await storedDocuments(world)).toEqual(before);
  });
});

describe('attacker: where a notification may create a customer', () => {
  it('a sandbox Stripe notification creates its customer in that project’s sandbox only: not in production, not in another project', async () => {
    const other = await seedProject(world.service);
    const customer = stripeIds.customer();
    const sub = stripeSubscription({ id: stripeIds.subscription(), customer });
    world.stripe.subscriptions.set(sub.id as string, sub);
    const event = stripeEvent('customer.subscription.created', sub, { created: Math.floor(later() / 1000) });
    expect((await postStripe(world, event)).body).toMatchObject({ env: 'sandbox', decision: 'applied' });
    const customerId = await customerOf(world, 'test', 'stripe', customer);
    expect(customerId).not.toBeNull();
    expect(await auditOf(world, 'test', event.id as string)).toMatchObject({ customerId });
    expect(await customerOf(world, 'live', 'stripe', customer)).toBeNull();
    expect(await customersHolding('live', 'stripe', customer)).toEqual([]);
    for (const env of ['test', 'live'] as const) {
      const elsewhere = new EnvScope(world.service.deps.db, other.projectId, env);
      expect((await elsewhere.collection('identityIndex').where('id', '==', customer).get()).size).toBe(0);
      expect((await elsewhere.collection('customers').where('identities', 'array-contains', { kind: 'stripe', id: customer }).get()).size).toBe(0);
    }
  });

  it('a Play test purchase creates its customer in sandbox only, a real one in production only', async () => {
    for (const [testPurchase, env, otherEnv] of [[true, 'test', 'live'], [false, 'live', 'test']] as const) {
      const token = nextPurchaseToken();
      world.google.purchases.set(token, playPurchase({ testPurchase }));
      const notification = { version: '1.0', packageName: PLAY_PACKAGE, eventTimeMillis: String(later()), subscriptionNotification: { version: '1.0', notificationType: 4, purchaseToken: token, subscriptionId: 'pro_monthly' } };
      const res = await postGoogle(world, pushBody(notification), await world.google.pushToken({ audience: world.pushAudience }));
      expect(res.body).toMatchObject({ decision: 'applied', duplicate: false });
      expect(await customerOf(world, env, 'google_token', token)).not.toBeNull();
      expect(await customerOf(world, otherEnv, 'google_token', token)).toBeNull();
      expect(await customersHolding(otherEnv, 'google_token', token)).toEqual([]);
    }
  });

  it('an unverified new subscriber’s notification (Stripe forged, Play without a valid push token) creates no customer and writes nothing', async () => {
    const customer = stripeIds.customer();
    const sub = stripeSubscription({ id: stripeIds.subscription(), customer });
    world.stripe.subscriptions.set(sub.id as string, sub);
    const token = nextPurchaseToken();
    world.google.purchases.set(token, playPurchase({}));
    const notification = { version: '1.0', packageName: PLAY_PACKAGE, eventTimeMillis: String(later()), subscriptionNotification: { version: '1.0', notificationType: 4, purchaseToken: token, subscriptionId: 'pro_monthly' } };
    const before = await storedDocuments(world);
    expectError(await postStripe(world, stripeEvent('customer.subscription.created', sub), { secret: 'whsec_forged' }), 401, 'authentication_error', 'invalid_api_key');
    expectError(await postGoogle(world, pushBody(notification), await world.google.pushToken({ audience: 'https://attacker.example/push' })), 401, 'authentication_error', 'invalid_api_key');
    expectError(await postGoogle(world, pushBody(notification), null), 401, 'authentication_error', 'invalid_api_key');
    expect(await storedDocuments(world)).toEqual(before);
    expect(await customerOf(world, 'test', 'stripe', customer)).toBeNull();
    expect(await customerOf(world, 'live', 'google_token', token)).toBeNull();
  });
});
