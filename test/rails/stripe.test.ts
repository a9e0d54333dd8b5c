/**
 * Guarantees of POST /v1/webhooks/stripe/{projectId}: the Stripe-Signature is checked by the
 * `stripe` library on the raw body with the signing secret of the event's mode (forged,
 * tampered, stale-timestamp and wrong-mode events are 401, logged with the request id, and write
 * nothing — no audit entry, no de-duplication claim, no customer); subscription
 * created / updated / deleted, invoice paid / payment failed, charge refunded and disputes lost
 * drive the customer's entitlements, found through the linked Stripe customer id or the
 * checkout's metadata; state is rebuilt from Stripe's API, so late or reordered events never
 * regress it; duplicates change nothing; `livemode: false` stays in sandbox and `true` in production.
 */
import { randomUUID } from 'node:crypto';
import { linkHints } from '../../functions/src/identity/repository';
import { railLogs } from '../../functions/src/rails/logs';
import { createTestService, expectError, seedProject } from '../support/harness';
import { stripeEvent, stripeIds, stripeSubscription } from './support/stripeFake';
import { activeKeys, auditOf, createRailsWorld, customerOf, entitlementsOf, postStripe, storedDocuments, subscriptionOf, WEBHOOK_SECRETS, type RailsWorld } from './support/railsWorld';

let world: RailsWorld;
beforeAll(async () => {
  world = await createRailsWorld();
});
afterAll(async () => {
  await world.stop();
});

const seconds = () => Math.floor(world.service.clock.now() / 1000);
let created = 0;
/** Strictly increasing event times. */
const nextCreated = () => seconds() + (created += 1);

async function newCustomer(env: 'test' | 'live' = 'test'): Promise<string> {
  const { customerId } = await linkHints(world.scope(env), [{ kind: 'developer', id: `user_${randomUUID()}` }], 'self_asserted', world.service.clock.now());
  return customerId!;
}

/** A subscription that exists at Stripe (the fake API) and the created event announcing it. */
async function subscribe(fields: { metadata?: Record<string, string>; customer?: string; livemode?: boolean } = {}) {
  const customer = fields.customer ?? stripeIds.customer();
  const sub = stripeSubscription({ id: stripeIds.subscription(), customer, metadata: fields.metadata, livemode: fields.livemode });
  world.stripe.subscriptions.set(sub.id as string, sub);
  const event = stripeEvent('customer.subscription.created', sub, { created: nextCreated(), livemode: fields.livemode });
  const res = await postStripe(world, event);
  return { sub, subId: sub.id as string, customer, event, res };
}

function invoice(subId: string, customer: string, paymentIntent: string, paidAt = seconds()) {
  return {
    id: stripeIds.invoice(),
    object: 'invoice',
    customer,
    status: 'paid',
    parent: { type: 'subscription_details', subscription_details: { subscription: subId } },
    payments: { object: 'list', data: [{ object: 'invoice_payment', payment: { type: 'payment_intent', payment_intent: paymentIntent } }] },
    status_transitions: { paid_at: paidAt },
  };
}

describe('events drive entitlements', () => {
  it('subscription created: the checkout’s serviceCustomerId names the customer; state comes from Stripe', async () => {
    const customerId = await newCustomer();
    const { res, event, subId, customer } = await subscribe({ metadata: { serviceCustomerId: customerId } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'rail_notification', eventId: event.id, env: 'sandbox', decision: 'applied', reason: 'created_active', duplicate: false });
    expect(activeKeys(await entitlementsOf(world, 'test', customerId))).toEqual(['pro']);
    expect(await customerOf(world, 'test', 'stripe', customer)).toBe(customerId);
    expect(await auditOf(world, 'test', event.id as string)).toMatchObject({
      rail: 'stripe',
      eventType: 'stripe.customer.subscription.created',
      customerId,
      subscriptionId: subId,
      decision: 'applied',
      signatureVerified: true,
      reconciledWithProvider: true,
      toState: 'active',
    });
    expect(await subscriptionOf(world, 'test', 'stripe', subId)).toMatchObject({ state: 'active', productId: 'prod_pro', customerId, lastEventId: event.id });
  });

  it('finds the customer through a Stripe customer id linked earlier (identify or migration)', async () => {
    const customer = stripeIds.customer();
    const { customerId } = await linkHints(world.scope('test'), [{ kind: 'developer', id: `user_${randomUUID()}` }, { kind: 'stripe', id: customer }], 'self_asserted', world.service.clock.now());
    await subscribe({ customer });
    expect(activeKeys(await entitlementsOf(world, 'test', customerId!))).toEqual(['pro']);
  });

  it('checkout.session.completed links the customer named by client_reference_id', async () => {
    const userId = `user_${randomUUID()}`;
    const { customerId } = await linkHints(world.scope('test'), [{ kind: 'developer', id: userId }], 'self_asserted', world.service.clock.now());
    const customer = stripeIds.customer();
    const sub = stripeSubscription({ id: stripeIds.subscription(), customer });
    world.stripe.subscriptions.set(sub.id as string, sub);
    const session = { id: `cs_${randomUUID().replace(/-/g, '')}`, object: 'checkout.session', mode: 'subscription', customer, subscription: sub.id, client_reference_id: userId, metadata: {} };
    const res = await postStripe(world, stripeEvent('checkout.session.completed', session, { created: nextCreated() }));
    expect(res.body.decision).toBe('applied');
    expect(activeKeys(await entitlementsOf(world, 'test', customerId!))).toEqual(['pro']);
    expect(await customerOf(world, 'test', 'stripe', customer)).toBe(customerId);
  });

  it('invoice payment failed: Stripe says past_due, access ends; invoice paid: access returns', async () => {
    const { subId, customer, sub } = await subscribe();
    const customerId = (await customerOf(world, 'test', 'stripe', customer))!;
    world.stripe.subscriptions.set(subId, { ...sub, status: 'past_due' });
    const failed = await postStripe(world, stripeEvent('invoice.payment_failed', { ...invoice(subId, customer, stripeIds.paymentIntent()), status: 'open' }, { created: nextCreated() }));
    expect(failed.body).toMatchObject({ decision: 'applied', reason: 'active_to_billing_retry' });
    expect(activeKeys(await entitlementsOf(world, 'test', customerId))).toEqual([]);
    world.stripe.subscriptions.set(subId, sub);
    await postStripe(world, stripeEvent('invoice.paid', invoice(subId, customer, stripeIds.paymentIntent()), { created: nextCreated() }));
    expect(activeKeys(await entitlementsOf(world, 'test', customerId))).toEqual(['pro']);
  });

  it('subscription deleted ends access', async () => {
    const { subId, customer, sub } = await subscribe();
    const customerId = (await customerOf(world, 'test', 'stripe', customer))!;
    const canceled = { ...sub, status: 'canceled', ended_at: seconds() - 5 };
    world.stripe.subscriptions.set(subId, canceled);
    const res = await postStripe(world, stripeEvent('customer.subscription.deleted', canceled, { created: nextCreated() }));
    expect(res.body.reason).toBe('active_to_expired');
    expect(activeKeys(await entitlementsOf(world, 'test', customerId))).toEqual([]);
  });

  it('a full refund takes access back (even though Stripe keeps the subscription active); a later paid invoice restores it', async () => {
    const { subId, customer } = await subscribe();
    const customerId = (await customerOf(world, 'test', 'stripe', customer))!;
    const paymentIntent = stripeIds.paymentIntent();
    await postStripe(world, stripeEvent('invoice.paid', invoice(subId, customer, paymentIntent), { created: nextCreated() }));
    const partial = await postStripe(world, stripeEvent('charge.refunded', { id: stripeIds.charge(), object: 'charge', customer, payment_intent: paymentIntent, refunded: false, amount_refunded: 100 }, { created: nextCreated() }));
    expect(partial.body).toMatchObject({ decision: 'no_op', reason: 'partial_refund' });
    const refund = await postStripe(world, stripeEvent('charge.refunded', { id: stripeIds.charge(), object: 'charge', customer, payment_intent: paymentIntent, refunded: true }, { created: nextCreated() }));
    expect(refund.body).toMatchObject({ decision: 'applied', reason: 'active_to_refunded' });
    expect(activeKeys(await entitlementsOf(world, 'test', customerId))).toEqual([]);
    // A subscription update Stripe sends afterwards still reads `active`: the refund stands.
    const after = await postStripe(world, stripeEvent('customer.subscription.updated', world.stripe.subscriptions.get(subId)!, { created: nextCreated() }));
    expect(after.body.decision).toBe('no_op');
    expect(activeKeys(await entitlementsOf(world, 'test', customerId))).toEqual([]);
    world.service.clock.advance(10_000);
    await postStripe(world, stripeEvent('invoice.paid', invoice(subId, customer, stripeIds.paymentIntent(), seconds() + 1000), { created: seconds() + 1000 }));
    expect(activeKeys(await entitlementsOf(world, 'test', customerId))).toEqual(['pro']);
  });

  it('a refund matched through the charge id of an older-API invoice works too; an unmatched one is a recorded no-op', async () => {
    const { subId, customer } = await subscribe();
    const customerId = (await customerOf(world, 'test', 'stripe', customer))!;
    const charge = stripeIds.charge();
    const oldShape = { id: stripeIds.invoice(), object: 'invoice', customer, subscription: subId, charge, payment_intent: null, status: 'paid' };
    await postStripe(world, stripeEvent('invoice.payment_succeeded', oldShape, { created: nextCreated() }));
    const refund = await postStripe(world, stripeEvent('charge.refunded', { id: charge, object: 'charge', customer, invoice: oldShape.id, refunded: true }, { created: nextCreated() }));
    expect(refund.body.decision).toBe('applied');
    expect(activeKeys(await entitlementsOf(world, 'test', customerId))).toEqual([]);
    const stray = await postStripe(world, stripeEvent('charge.refunded', { id: stripeIds.charge(), object: 'charge', customer, refunded: true }, { created: nextCreated() }));
    expect(stray.body).toMatchObject({ decision: 'no_op', reason: 'payment_not_matched' });
  });

  it('a lost dispute revokes; a won one changes nothing', async () => {
    const { subId, customer } = await subscribe();
    const customerId = (await customerOf(world, 'test', 'stripe', customer))!;
    const paymentIntent = stripeIds.paymentIntent();
    await postStripe(world, stripeEvent('invoice.paid', invoice(subId, customer, paymentIntent), { created: nextCreated() }));
    const won = await postStripe(world, stripeEvent('charge.dispute.closed', { id: 'dp_won', object: 'dispute', charge: stripeIds.charge(), payment_intent: paymentIntent, status: 'won' }, { created: nextCreated() }));
    expect(won.body).toMatchObject({ decision: 'no_op', reason: 'dispute_not_lost' });
    const lost = await postStripe(world, stripeEvent('charge.dispute.closed', { id: 'dp_lost', object: 'dispute', charge: stripeIds.charge(), payment_intent: paymentIntent, status: 'lost' }, { created: nextCreated() }));
    expect(lost.body).toMatchObject({ decision: 'applied', reason: 'active_to_revoked' });
    expect(activeKeys(await entitlementsOf(world, 'test', customerId))).toEqual([]);
  });

  it('records events it does not act on as no-ops', async () => {
    const res = await postStripe(world, stripeEvent('customer.updated', { id: stripeIds.customer(), object: 'customer' }, { created: nextCreated() }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ decision: 'no_op', reason: 'event_type_not_handled' });
  });
});

describe('delivery', () => {
  it('de-duplicates on the event id', async () => {
    const { event, res } = await subscribe();
    expect(res.body.duplicate).toBe(false);
    const audit = await auditOf(world, 'test', event.id as string);
    const again = await postStripe(world, event);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ decision: 'applied', duplicate: true });
    expect(await auditOf(world, 'test', event.id as string)).toEqual(audit);
  });

  it('an unreachable Stripe API records nothing and answers 500, so Stripe retries; the retry applies', async () => {
    const customer = stripeIds.customer();
    const sub = stripeSubscription({ id: stripeIds.subscription(), customer });
    world.stripe.subscriptions.set(sub.id as string, sub);
    world.stripe.failing.add(sub.id as string);
    const event = stripeEvent('customer.subscription.created', sub, { created: nextCreated() });
    expectError(await postStripe(world, event), 500, 'internal_error', 'internal_error');
    expect(await auditOf(world, 'test', event.id as string)).toBeNull();
    world.stripe.failing.delete(sub.id as string);
    expect((await postStripe(world, event)).body).toMatchObject({ decision: 'applied', duplicate: false });
  });

  it('a signing secret the secret store cannot read records nothing and answers 500 (retried until fixed)', async () => {
    const { writeRailConfig } = await import('../../functions/src/rails/config');
    const service = createTestService();
    const other = await seedProject(service);
    const { EnvScope } = await import('../../functions/src/store/scope');
    await writeRailConfig(new EnvScope(service.deps.db, other.projectId, 'test'), 'stripe', { secretKeyRef: 'missing-secret-key', webhookSecretRef: 'missing-webhook-secret' }, service.clock.now());
    const event = stripeEvent('customer.updated', { id: stripeIds.customer(), object: 'customer' });
    const payload = JSON.stringify(event);
    const { default: Stripe } = await import('stripe');
    const res = await service
      .request()
      .post(`/v1/webhooks/stripe/${other.projectId}`)
      .set('Content-Type', 'application/json')
      .set('Stripe-Signature', Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRETS.test }))
      .send(payload);
    expectError(res, 500, 'internal_error', 'internal_error');
    expect(JSON.stringify(res.body)).not.toContain('missing-webhook-secret');
  });

  it('rebuilds from Stripe’s current view, so a late event cannot resurrect a canceled subscription', async () => {
    const { subId, customer, sub } = await subscribe();
    const customerId = (await customerOf(world, 'test', 'stripe', customer))!;
    const canceled = { ...sub, status: 'canceled', ended_at: seconds() - 5 };
    world.stripe.subscriptions.set(subId, canceled);
    await postStripe(world, stripeEvent('customer.subscription.deleted', canceled, { created: nextCreated() }));
    // An "updated: active" event from before the cancellation arrives late.
    const late = await postStripe(world, stripeEvent('customer.subscription.updated', sub, { created: seconds() - 100 }));
    expect(late.status).toBe(200);
    expect(activeKeys(await entitlementsOf(world, 'test', customerId))).toEqual([]);
    expect((await subscriptionOf(world, 'test', 'stripe', subId))!.state).toBe('expired');
  });

  it('without a provider view (unknown to the API) an older event is a recorded out-of-order no-op', async () => {
    const customer = stripeIds.customer();
    const subId = stripeIds.subscription();
    const active = stripeSubscription({ id: subId, customer });
    const canceled = { ...active, status: 'canceled', ended_at: seconds() - 5 };
    const newer = await postStripe(world, stripeEvent('customer.subscription.deleted', canceled, { created: nextCreated() + 50 }));
    expect(newer.body.decision).toBe('applied');
    const older = await postStripe(world, stripeEvent('customer.subscription.updated', active, { created: seconds() - 100 }));
    expect(older.body).toMatchObject({ decision: 'no_op', reason: 'out_of_order' });
    expect((await subscriptionOf(world, 'test', 'stripe', subId))!.state).toBe('expired');
    expect(await auditOf(world, 'test', older.body.eventId)).toMatchObject({ reconciledWithProvider: false });
  });
});

describe('verification', () => {
  it('rejects a wrong signing secret (401) at once, logs it with the request id and writes nothing', async () => {
    const event = stripeEvent('customer.subscription.created', stripeSubscription({ id: stripeIds.subscription(), customer: stripeIds.customer() }), { created: nextCreated() });
    const before = await storedDocuments(world);
    const logged = jest.spyOn(railLogs, 'notificationUnverified');
    try {
      const res = await postStripe(world, event, { secret: 'whsec_not_the_endpoint_secret' });
      expectError(res, 401, 'authentication_error', 'invalid_api_key');
      expect(logged).toHaveBeenCalledWith(res.body.error.request_id, 'stripe', world.project.projectId, expect.stringMatching(/^signature_invalid: /));
    } finally {
      logged.mockRestore();
    }
    expect(await storedDocuments(world)).toEqual(before);
    // The genuine event with that id is then processed normally: nothing was claimed in its name.
    world.stripe.subscriptions.set((event.data as { object: { id: string } }).object.id, (event.data as { object: Record<string, unknown> }).object);
    expect((await postStripe(world, event)).body).toMatchObject({ eventId: event.id, decision: 'applied', duplicate: false });
  });

  it('rejects a tampered body, a stale timestamp and a missing header (401)', async () => {
    const event = stripeEvent('customer.subscription.created', stripeSubscription({ id: stripeIds.subscription(), customer: stripeIds.customer() }), { created: nextCreated() });
    const payload = JSON.stringify(event);
    const { default: Stripe } = await import('stripe');
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRETS.test });
    const tampered = await world.service.request().post(`/v1/webhooks/stripe/${world.project.projectId}`).set('Content-Type', 'application/json').set('Stripe-Signature', header).send(payload.replace('"active"', '"trialing"'));
    expectError(tampered, 401, 'authentication_error', 'invalid_api_key');
    expectError(await postStripe(world, event, { timestamp: seconds() - 600 }), 401, 'authentication_error', 'invalid_api_key');
    const bare = await world.service.request().post(`/v1/webhooks/stripe/${world.project.projectId}`).set('Content-Type', 'application/json').send(payload);
    expectError(bare, 401, 'authentication_error', 'invalid_api_key');
  });

  it('answers 400 for an unknown project and for a project without Stripe configured (the rail retries later)', async () => {
    const event = stripeEvent('customer.updated', { id: stripeIds.customer(), object: 'customer' });
    expectError(await postStripe(world, event, { projectId: 'proj_doesnotexist' }), 400, 'invalid_request_error', 'invalid_param_value');
    const service = createTestService();
    const bare = await seedProject(service);
    const { default: Stripe } = await import('stripe');
    const payload = JSON.stringify(event);
    const res = await service
      .request()
      .post(`/v1/webhooks/stripe/${bare.projectId}`)
      .set('Content-Type', 'application/json')
      .set('Stripe-Signature', Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRETS.test }))
      .send(payload);
    expectError(res, 400, 'invalid_request_error', 'invalid_param_value');
  });
});

describe('tenants’ secrets', () => {
  /** Project A (the attacker's) whose rails name project B's (the world's) secret references. */
  async function attackerNaming(refs: { secretKeyRef: string; webhookSecretRef: string }) {
    const attacker = await seedProject(world.service);
    const { writeRailConfig } = await import('../../functions/src/rails/config');
    const { EnvScope } = await import('../../functions/src/store/scope');
    const scope = new EnvScope(world.service.deps.db, attacker.projectId, 'test');
    await writeRailConfig(scope, 'stripe', refs, world.service.clock.now());
    await writeRailConfig(scope, 'google', { packageName: 'com.example.android', serviceAccountRef: 'play-service-account', pushAudience: 'https://attacker.example/push' }, world.service.clock.now());
    return attacker;
  }

  it('a project that names another project’s Stripe references reads neither: B’s events are not accepted at A’s endpoint, and Stripe is never called with B’s key', async () => {
    const attacker = await attackerNaming({ secretKeyRef: 'stripe-test-secret-key', webhookSecretRef: 'stripe-test-webhook-secret' });
    const sub = stripeSubscription({ id: stripeIds.subscription(), customer: stripeIds.customer() });
    world.stripe.subscriptions.set(sub.id as string, sub);
    const event = stripeEvent('customer.subscription.created', sub, { created: nextCreated() });
    const reads = world.stripe.reads;
    // A genuine event of B's, signed with B's signing secret, replayed to A's endpoint.
    const res = await postStripe(world, event, { projectId: attacker.projectId });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.body).not.toMatchObject({ object: 'rail_notification' });
    expect(JSON.stringify(res.body)).not.toContain(WEBHOOK_SECRETS.test);
    expect(world.stripe.reads).toBe(reads);
    const { auditRef } = await import('../../functions/src/audit/append');
    const { EnvScope } = await import('../../functions/src/store/scope');
    expect((await auditRef(new EnvScope(world.service.deps.db, attacker.projectId, 'test'), event.id as string).get()).exists).toBe(false);
    // The same event at B's own endpoint is B's, as always.
    expect((await postStripe(world, event)).body).toMatchObject({ decision: 'applied', duplicate: false });
  });

  it('the Stripe key and the Play service account resolve in the caller’s project only', async () => {
    const attacker = await attackerNaming({ secretKeyRef: 'stripe-test-secret-key', webhookSecretRef: 'stripe-test-webhook-secret' });
    const { SecretUnavailableError } = await import('../../functions/src/secrets/store');
    const { readStripeSubscription } = await import('../../functions/src/rails/stripe/provider');
    const { readPlaySubscription } = await import('../../functions/src/rails/google/playApi');
    const deps = world.service.deps;
    const reads = world.stripe.reads;
    const seen = world.playCredentialsSeen.length;
    await expect(readStripeSubscription(deps, attacker.projectId, { secretKeyRef: 'stripe-test-secret-key', webhookSecretRef: 'x' }, 'sub_x')).rejects.toBeInstanceOf(SecretUnavailableError);
    await expect(readPlaySubscription(deps, attacker.projectId, { packageName: 'com.example.android', serviceAccountRef: 'play-service-account' }, 'token')).rejects.toBeInstanceOf(SecretUnavailableError);
    expect(world.stripe.reads).toBe(reads);
    expect(world.playCredentialsSeen).toHaveLength(seen);
    // B's own references still resolve for B.
    await expect(deps.secrets.read(world.project.projectId, 'stripe-test-webhook-secret')).resolves.toBe(WEBHOOK_SECRETS.test);
  });
});

describe('environments', () => {
  it('lands livemode events in production only, and test-mode events in sandbox only', async () => {
    const customerId = await newCustomer('live');
    const live = await subscribe({ livemode: true, metadata: { serviceCustomerId: customerId } });
    expect(live.res.body.env).toBe('production');
    expect(activeKeys(await entitlementsOf(world, 'live', customerId))).toEqual(['pro']);
    expect(await subscriptionOf(world, 'test', 'stripe', live.subId)).toBeNull();
    expect(await auditOf(world, 'test', live.event.id as string)).toBeNull();

    const sandbox = await subscribe();
    expect(sandbox.res.body.env).toBe('sandbox');
    expect(await subscriptionOf(world, 'live', 'stripe', sandbox.subId)).toBeNull();
  });

  it('refuses a test-mode event signed with the live secret (each mode verifies with its own secret)', async () => {
    const event = stripeEvent('customer.subscription.created', stripeSubscription({ id: stripeIds.subscription(), customer: stripeIds.customer() }), { created: nextCreated(), livemode: false });
    expectError(await postStripe(world, event, { secret: WEBHOOK_SECRETS.live }), 401, 'authentication_error', 'invalid_api_key');
  });
});
