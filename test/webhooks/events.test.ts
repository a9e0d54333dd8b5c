/**
 * Guarantees of event recording (the outbox, issue 13 §2): every entitlement and customer event
 * type is produced by the real service paths — a server grant and a migration row (granted), a
 * re-grant that moves the end later and a Stripe renewal (renewed), a server revoke and a Play
 * revocation in production (revoked), a Stripe refund (refunded), an end passing without
 * renewal under a controlled clock (expired, by the webhook worker, within the grace; a renewal
 * that lands just after the old end stays a renewal), an operator merge (customer.merged) and
 * an erasure (customer.erased) — each in the transaction of
 * its change, with the §2 payload, an id derived from the change (one event per change, none
 * without one; no-ops record nothing), fanned out after the commit to the partition's endpoint
 * with the deterministic delivery task id, and never twice however often it is fanned out.
 */
import { randomUUID } from 'node:crypto';
import { MINUTE } from '../../functions/src/clock';
import { ENTITLEMENT_CHANGES, type EntitlementChange } from '../../functions/src/entitlements/changeModel';
import { EXPIRY_GRACE_MS } from '../../functions/src/entitlements/expirySweep';
import type { AuditEntry } from '../../functions/src/audit/model';
import { auditRef } from '../../functions/src/audit/append';
import { linkHints, linkMigratedUser } from '../../functions/src/identity/repository';
import { erasureCompletedEventId } from '../../functions/src/identity/erasureModel';
import type { Env } from '../../functions/src/store/env';
import { webhookEventId } from '../../functions/src/webhooks/eventIds';
import { deliveryTaskId, type WebhookEventRecord } from '../../functions/src/webhooks/eventModel';
import { fanOutEvent } from '../../functions/src/webhooks/fanout';
import { webhookEventRef } from '../../functions/src/webhooks/outbox';
import { RELAY_AFTER_MS } from '../../functions/src/webhooks/relay';
import { runWebhookWorker } from '../../functions/src/app/workers/outboxWorker';
import { lockHeaders } from '../support/harness';
import { stripeEvent, stripeIds, stripeSubscription } from '../rails/support/stripeFake';
import { nextPurchaseToken, playPurchase, pushBody } from '../rails/support/googleFake';
import { createRailsWorld, customerOf, PLAY_PACKAGE, postGoogle, postStripe, type RailsWorld } from '../rails/support/railsWorld';
import { createEndpoint, DeliveryRecordingQueue, eventsOf, tessera } from './support/outbox';

const queue = new DeliveryRecordingQueue();
let world: RailsWorld;
let endpointId: string;
let liveEndpointId: string;
beforeAll(async () => {
  world = await createRailsWorld({ tasks: queue });
  endpointId = await createEndpoint(world.service, world.project.projectId, 'test');
  liveEndpointId = await createEndpoint(world.service, world.project.projectId, 'live');
});
afterAll(async () => {
  await world.stop();
});

const service = () => world.service;
const projectId = () => world.project.projectId;
const scope = () => world.scope('test');
const now = () => world.service.clock.now();
const S = (ms: number) => Math.floor(ms / 1000);
const secret = (env: Env = 'test') => ({ Authorization: `Bearer ${world.project.web[env].secret}` });
const REASON = 'Webhook event suite: a change to announce';

async function newCustomer(): Promise<string> {
  const { customerId } = await linkHints(scope(), [{ kind: 'developer', id: `user_${randomUUID()}` }], 'self_asserted', now());
  return customerId!;
}

async function grant(customerId: string, entitlementKey: string, duration: string) {
  const res = await service().request().post(`/v1/server/customers/${customerId}/grant`).set(secret()).send({ entitlementKey, duration, reason: REASON });
  expect(res.status).toBe(200);
  await queue.drain();
  return res;
}

async function changesOf(customerId: string): Promise<EntitlementChange[]> {
  const snapshot = await scope().collection(ENTITLEMENT_CHANGES).where('customerId', '==', customerId).get();
  return snapshot.docs.map((d) => d.data() as EntitlementChange).sort((a, b) => a.sequence - b.sequence);
}

const events = (customerId: string) => eventsOf(service(), projectId(), 'test', customerId);

/** The event was fanned out to the suite's endpoint of its environment exactly once, under the deterministic task id. */
function expectDeliveredOnce(event: WebhookEventRecord): void {
  const to = event.env === 'live' ? liveEndpointId : endpointId;
  expect(queue.deliveriesOf(event.eventId)).toEqual([
    { id: deliveryTaskId(event.eventId, to), payload: { projectId: projectId(), env: event.env, eventId: event.eventId, endpointId: to } },
  ]);
}

/** Each change record has its event, built from it, and no event lacks its change. */
async function expectOneEventPerChange(customerId: string, expectedTypes: string[]): Promise<WebhookEventRecord[]> {
  const [changes, all] = await Promise.all([changesOf(customerId), events(customerId)]);
  const recorded = all.filter((e) => e.type.startsWith('entitlement.'));
  expect(recorded.map((e) => e.type)).toEqual(expectedTypes);
  expect(recorded.map((e) => e.changeId)).toEqual(changes.map((c) => c.changeId));
  recorded.forEach((event, i) => {
    const change = changes[i];
    expect(event.eventId).toBe(webhookEventId({ projectId: projectId(), env: 'test' }, `entitlementChange/${change.changeId}`));
    expect(event.payload.data).toMatchObject({ serviceCustomerId: customerId, sequence: change.sequence, previous: change.before });
    if (change.after) expect(event.payload.data.entitlement).toEqual(change.after);
  });
  return recorded;
}

describe('server grants and revokes', () => {
  it('a grant records entitlement.granted with the §2 payload, fanned out once to the endpoint', async () => {
    const customerId = await newCustomer();
    const at = now();
    const res = await grant(customerId, 'pro', 'P30D');
    const [event] = await expectOneEventPerChange(customerId, ['entitlement.granted']);
    expect(event.payload).toEqual({
      id: event.eventId,
      object: 'event',
      type: 'entitlement.granted',
      created: at,
      env: 'sandbox',
      projectId: projectId(),
      apiVersion: 'v1',
      data: {
        serviceCustomerId: customerId,
        sequence: 1,
        entitlement: { object: 'entitlement', key: 'pro', isActive: true, validUntil: S(at + 30 * 86_400_000), source: { rail: 'manual', productId: 'manual', subscriptionId: expect.stringMatching(/^grt_/) }, updatedAt: S(at) },
        previous: null,
        cause: { rail: 'manual', auditEventId: res.headers['x-service-audit-event-id'] },
      },
    });
    expect(event).toMatchObject({ projectId: projectId(), env: 'test', endpointId: null, createdAt: at, fannedOutAt: at });
    expectDeliveredOnce(event);
  });

  it('a re-grant that moves the end later records entitlement.renewed; one that extends nothing records nothing', async () => {
    const customerId = await newCustomer();
    await grant(customerId, 'pro', 'P30D');
    service().clock.advance(1000);
    const renewal = await grant(customerId, 'pro', 'P90D');
    await grant(customerId, 'pro', 'P30D'); // no_op: the end stays
    const [granted, renewed] = await expectOneEventPerChange(customerId, ['entitlement.granted', 'entitlement.renewed']);
    expect(renewed.payload.data).toMatchObject({
      sequence: 2,
      previous: granted.payload.data.entitlement,
      entitlement: { isActive: true, validUntil: renewal.body.entitlement.validUntil },
      cause: { rail: 'manual', auditEventId: renewal.headers['x-service-audit-event-id'] },
    });
    expectDeliveredOnce(renewed);
  });

  it('a revoke records entitlement.revoked: the entitlement as it ended, the previous one active', async () => {
    const customerId = await newCustomer();
    await grant(customerId, 'pro', 'lifetime');
    service().clock.advance(1000);
    const at = now();
    const res = await service().request().post(`/v1/server/customers/${customerId}/revoke`).set(secret()).send({ entitlementKey: 'pro', reason: REASON });
    expect(res.status).toBe(200);
    await queue.drain();
    const [granted, revoked] = await expectOneEventPerChange(customerId, ['entitlement.granted', 'entitlement.revoked']);
    expect(revoked.payload.data).toEqual({
      serviceCustomerId: customerId,
      sequence: 2,
      entitlement: { ...(granted.payload.data.entitlement as object), isActive: false, validUntil: S(at), updatedAt: S(at) },
      previous: granted.payload.data.entitlement,
      cause: { rail: 'manual', auditEventId: res.headers['x-service-audit-event-id'] },
    });
    expectDeliveredOnce(revoked);
  });
});

describe('Stripe', () => {
  let created = 0;
  const nextCreated = () => S(now()) + (created += 1);

  async function subscribe(customerId: string, periodEnd: number) {
    const customer = stripeIds.customer();
    const sub = stripeSubscription({ id: stripeIds.subscription(), customer, metadata: { serviceCustomerId: customerId }, periodEnd });
    world.stripe.subscriptions.set(sub.id as string, sub);
    const event = stripeEvent('customer.subscription.created', sub, { created: nextCreated() });
    expect((await postStripe(world, event)).body.decision).toBe('applied');
    await queue.drain();
    return { sub, subId: sub.id as string, customer, eventId: event.id as string };
  }

  async function renew(sub: Record<string, unknown>, periodEnd: number): Promise<string> {
    const renewed = stripeSubscription({ id: sub.id as string, customer: sub.customer as string, metadata: sub.metadata as Record<string, string>, periodStart: S(now()), periodEnd });
    world.stripe.subscriptions.set(sub.id as string, renewed);
    const event = stripeEvent('customer.subscription.updated', renewed, { created: nextCreated() });
    expect((await postStripe(world, event)).body.decision).toBe('applied');
    await queue.drain();
    return event.id as string;
  }

  it('a renewal that moves the period end records entitlement.renewed; a full refund entitlement.refunded', async () => {
    const customerId = await newCustomer();
    const { sub, subId, customer, eventId } = await subscribe(customerId, S(now()) + 30 * 86_400);
    const renewalId = await renew(sub, S(now()) + 60 * 86_400);
    const paymentIntent = stripeIds.paymentIntent();
    const invoice = { id: stripeIds.invoice(), object: 'invoice', customer, status: 'paid', parent: { type: 'subscription_details', subscription_details: { subscription: subId } }, payments: { object: 'list', data: [{ object: 'invoice_payment', payment: { type: 'payment_intent', payment_intent: paymentIntent } }] }, status_transitions: { paid_at: S(now()) } };
    await postStripe(world, stripeEvent('invoice.paid', invoice, { created: nextCreated() }));
    const refund = stripeEvent('charge.refunded', { id: stripeIds.charge(), object: 'charge', customer, payment_intent: paymentIntent, refunded: true }, { created: nextCreated() });
    expect((await postStripe(world, refund)).body).toMatchObject({ decision: 'applied', reason: 'active_to_refunded' });
    await queue.drain();

    const [granted, renewed, refunded] = await expectOneEventPerChange(customerId, ['entitlement.granted', 'entitlement.renewed', 'entitlement.refunded']);
    expect(granted.payload.data.cause).toEqual({ rail: 'stripe', auditEventId: eventId });
    expect(renewed.payload.data).toMatchObject({ cause: { rail: 'stripe', auditEventId: renewalId }, entitlement: { validUntil: (renewed.payload.data.previous as { validUntil: number }).validUntil + 30 * 86_400 } });
    expect(refunded.payload.data).toMatchObject({ cause: { rail: 'stripe', auditEventId: refund.id }, entitlement: { key: 'pro', isActive: false, source: { rail: 'stripe', subscriptionId: subId } } });
    for (const event of [granted, renewed, refunded]) expectDeliveredOnce(event);
  });

  it('an end that passes without renewal records entitlement.expired once, after the grace, through the worker', async () => {
    const customerId = await newCustomer();
    const end = S(now()) + 60;
    await subscribe(customerId, end);
    service().clock.set(end * 1000 + EXPIRY_GRACE_MS / 2);
    await runWebhookWorker(service().deps);
    expect((await events(customerId)).map((e) => e.type)).toEqual(['entitlement.granted']); // inside the grace

    service().clock.set(end * 1000 + EXPIRY_GRACE_MS + 1000);
    const at = now();
    const report = await runWebhookWorker(service().deps);
    expect(report.expiries.recorded).toBeGreaterThanOrEqual(1);
    await queue.drain();
    await runWebhookWorker(service().deps); // again: nothing new
    await queue.drain();

    const [granted, expired] = await expectOneEventPerChange(customerId, ['entitlement.granted', 'entitlement.expired']);
    expect(expired.payload).toMatchObject({ type: 'entitlement.expired', created: at });
    expect(expired.payload.data).toEqual({
      serviceCustomerId: customerId,
      sequence: 2,
      entitlement: { ...(granted.payload.data.entitlement as object), isActive: false },
      previous: granted.payload.data.entitlement,
      cause: { rail: 'stripe', auditEventId: expect.stringMatching(/^srv_expiry_/) },
    });
    // Within 5 minutes of the end (issue 13 §2), and audited beside the change.
    expect(at - end * 1000).toBeLessThan(5 * MINUTE);
    const audit = (await auditRef(scope(), (expired.payload.data.cause as { auditEventId: string }).auditEventId).get()).data() as AuditEntry;
    expect(audit).toMatchObject({ eventType: 'entitlement.expired', customerId, decision: 'applied', rail: 'stripe', fromState: 'active', toState: 'expired' });
    expectDeliveredOnce(expired);
  });

  it('a renewal that lands after the old end but before its expiry is recorded is a renewal, and nothing expires', async () => {
    const customerId = await newCustomer();
    const end = S(now()) + 60;
    const { sub } = await subscribe(customerId, end);
    service().clock.set(end * 1000 + 10_000);
    await renew(sub, end + 30 * 86_400);
    service().clock.set(end * 1000 + EXPIRY_GRACE_MS + RELAY_AFTER_MS);
    await runWebhookWorker(service().deps);
    await queue.drain();
    await expectOneEventPerChange(customerId, ['entitlement.granted', 'entitlement.renewed']);
  });
});

describe('Google Play', () => {
  it('a revocation (SUBSCRIPTION_REVOKED) records entitlement.revoked, in production', async () => {
    const token = nextPurchaseToken();
    world.google.purchases.set(token, playPurchase({ expiryTime: now() + 30 * 86_400_000 }));
    const push = async (notificationType: number) => {
      const body = pushBody({ version: '1.0', packageName: PLAY_PACKAGE, eventTimeMillis: String(now() + notificationType), subscriptionNotification: { version: '1.0', notificationType, purchaseToken: token, subscriptionId: 'pro_monthly' } });
      const res = await postGoogle(world, body, await world.google.pushToken({ audience: world.pushAudience }));
      expect(res.body.decision).toBe('applied');
      await queue.drain();
      return res.body.eventId as string;
    };
    const purchasedId = await push(4);
    const customerId = (await customerOf(world, 'live', 'google_token', token))!;
    world.google.purchases.set(token, playPurchase({ state: 'SUBSCRIPTION_STATE_EXPIRED', expiryTime: now() + 10 * 86_400_000 }));
    const revokedId = await push(12);
    const recorded = await eventsOf(service(), projectId(), 'live', customerId);
    expect(recorded.map((e) => [e.type, e.payload.env, (e.payload.data.cause as { auditEventId: string }).auditEventId])).toEqual([
      ['entitlement.granted', 'production', purchasedId],
      ['entitlement.revoked', 'production', revokedId],
    ]);
    expect(recorded[1].payload.data).toMatchObject({ entitlement: { key: 'pro', isActive: false, source: { rail: 'google' } }, previous: { isActive: true } });
    for (const event of recorded) expectDeliveredOnce(event);
  });
});

describe('migration', () => {
  it('a migrated row’s grant records entitlement.granted, caused by its migration audit entry', async () => {
    const userId = `migrated_${randomUUID().slice(0, 8)}`;
    const res = await service().request().post('/v1/migration/users').set(secret()).send({ users: [{ developerUserId: userId, entitlements: { early_access: true } }] });
    expect(res.status).toBe(200);
    await queue.drain();
    const customerId = (await customerOf(world, 'test', 'developer', userId))!;
    const [granted] = await expectOneEventPerChange(customerId, ['entitlement.granted']);
    expect(granted.payload.data).toMatchObject({ entitlement: { key: 'early_access', isActive: true, validUntil: null, source: { rail: 'manual', productId: 'migration' } }, cause: { rail: 'manual', auditEventId: expect.stringMatching(/^srv_migration_/) } });
    expectDeliveredOnce(granted);
  });
});

describe('customer events', () => {
  it('a merge records customer.merged (ids only) and the surviving customer’s gains; the relay fans them out', async () => {
    const user = `merge_${randomUUID().slice(0, 8)}`;
    const publishable = { Authorization: `Bearer ${world.project.ios.test.publishable}`, ...lockHeaders('ios') };
    const userCustomer = (await service().request().post('/v1/identify').set(publishable).send({ userId: user, anonymousId: `${user}-phone` })).body.serviceCustomerId as string;
    const deviceCustomer = (await linkMigratedUser(scope(), [{ kind: 'anonymous', id: `${user}-tablet` }], { email: 'merge@example.com', traits: {} }, now())).customerId!;
    await grant(deviceCustomer, 'team', 'P30D');
    expect((await service().request().post('/v1/identify').set(publishable).send({ userId: user, anonymousId: `${user}-tablet` })).body.mergePending).toBe(true);
    const { conflicts } = await tessera(service(), 'conflicts list', { project: projectId(), env: 'test' });
    const conflictId = conflicts.find((c: { canonicalCustomerId: string }) => c.canonicalCustomerId === userCustomer).conflictId;

    const at = now();
    const report = await tessera(service(), 'conflicts resolve', { conflict: conflictId, merge: true });
    const all = await eventsOf(service(), projectId(), 'test');
    const merged = all.find((e) => e.type === 'customer.merged' && e.payload.data.serviceCustomerId === userCustomer)!;
    expect(merged.payload).toEqual({
      id: webhookEventId({ projectId: projectId(), env: 'test' }, `audit/${report.auditEventId}`),
      object: 'event',
      type: 'customer.merged',
      created: at,
      env: 'sandbox',
      projectId: projectId(),
      apiVersion: 'v1',
      data: { serviceCustomerId: userCustomer, mergedCustomerIds: [deviceCustomer], cause: { rail: 'manual', auditEventId: report.auditEventId } },
    });
    // The surviving customer gained `team`; the merged one's vanishing key is told by customer.merged alone.
    const [gained] = await expectOneEventPerChange(userCustomer, ['entitlement.granted']);
    expect(gained.payload.data.cause).toEqual({ rail: 'manual', auditEventId: report.auditEventId });
    expect((await changesOf(deviceCustomer)).map((c) => c.after === null)).toEqual([false, true]);
    expect((await events(deviceCustomer)).map((e) => e.type)).toEqual(['entitlement.granted']);

    // An operator command has no task queue: the relay fans them out once they have waited.
    expect([merged.fannedOutAt, gained.fannedOutAt]).toEqual([null, null]);
    service().clock.advance(RELAY_AFTER_MS);
    await runWebhookWorker(service().deps);
    for (const event of [merged, gained]) {
      expect(((await webhookEventRef(scope(), event.eventId).get()).data() as WebhookEventRecord).fannedOutAt).toBe(now());
      expectDeliveredOnce(event);
    }
  });

  it('an erasure records customer.erased in its completion, with no personal data', async () => {
    const userId = `erase_${randomUUID().slice(0, 8)}`;
    const customerId = (await service().request().post('/v1/identify').set(secret()).send({ userId, anonymousId: `${userId}-device` })).body.serviceCustomerId as string;
    const res = await service().request().post('/v1/identity/forget').set(secret()).send({ customerId });
    expect(res.status).toBe(200);
    await queue.drain();
    const [erased] = await events(customerId);
    expect(erased.payload).toEqual({
      id: webhookEventId({ projectId: projectId(), env: 'test' }, `audit/${erasureCompletedEventId(customerId)}`),
      object: 'event',
      type: 'customer.erased',
      created: expect.any(Number),
      env: 'sandbox',
      projectId: projectId(),
      apiVersion: 'v1',
      data: { serviceCustomerId: customerId, cause: { rail: 'manual', auditEventId: erasureCompletedEventId(customerId) } },
    });
    expect(JSON.stringify(erased)).not.toContain(userId);
    expectDeliveredOnce(erased);
    expect(await events(customerId)).toHaveLength(1);
  });
});

describe('at most once into delivery', () => {
  it('fanning an event out again, by its task or by the relay, enqueues no second delivery', async () => {
    const customerId = await newCustomer();
    await grant(customerId, 'pro', 'P30D');
    const [event] = await events(customerId);
    expect(await fanOutEvent(scope(), service().deps, event.eventId)).toBe('already_fanned_out');
    // As if the fan-out crashed after enqueueing, before marking the event.
    await webhookEventRef(scope(), event.eventId).update({ fannedOutAt: null });
    const attempts = queue.deliveryAttempts;
    expect(await fanOutEvent(scope(), service().deps, event.eventId)).toBe('fanned_out');
    await webhookEventRef(scope(), event.eventId).update({ fannedOutAt: null });
    service().clock.advance(RELAY_AFTER_MS);
    await runWebhookWorker(service().deps);
    expect(queue.deliveryAttempts).toBeGreaterThanOrEqual(attempts + 2);
    expectDeliveredOnce(event);
    expect(new Set(queue.deliveries.map((d) => d.id)).size).toBe(queue.deliveries.length);
  });
});
