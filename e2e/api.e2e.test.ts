/**
 * The API as SDKs reach it deployed: through Hosting's rewrites to the functions, with the
 * background work on the Cloud Tasks emulator's queues (identityResolutionTask, erasureTask).
 */
import { db } from '../functions/src/store/firestore';
import { EVENTS, eventDocId } from '../functions/src/events/model';
import { storedEventConverter } from '../functions/src/events/storedEventCodec';
import { api, eventually, IOS_BUNDLE, IOS_TEST_PUBLISHABLE, PROJECT, WEB_TEST_SECRET } from './support/suite';

const run = Date.now().toString(36);
const identify = (userId: string, anonymousId: string) => api('POST', '/v1/identify', IOS_TEST_PUBLISHABLE, { userId, anonymousId }, IOS_BUNDLE);
const entitlementsOf = (userId: string) => api('GET', `/v1/entitlements?userId=${encodeURIComponent(userId)}`, IOS_TEST_PUBLISHABLE, undefined, IOS_BUNDLE);

it('identify → grant → entitlement read, through Hosting', async () => {
  const userId = `e2e-user-${run}`;
  const identified = await identify(userId, `e2e-device-${run}`);
  expect(identified.status).toBe(200);
  const customerId: string = identified.body.serviceCustomerId;
  expect(customerId).toMatch(/^cdcust_/);

  const before = await entitlementsOf(userId);
  expect(before.status).toBe(200);
  expect(before.body.data).toEqual([]);

  const grant = await api('POST', `/v1/server/customers/${customerId}/grant`, WEB_TEST_SECRET, { entitlementKey: 'pro', duration: 'P30D', reason: 'End-to-end test grant through Hosting' });
  expect(grant.status).toBe(200);
  expect(grant.body).toMatchObject({ object: 'entitlement_mutation', action: 'grant', serviceCustomerId: customerId, env: 'sandbox' });

  const after = await entitlementsOf(userId);
  expect(after.status).toBe(200);
  expect(after.body.serviceCustomerId).toBe(customerId);
  expect(after.body.data).toEqual([expect.objectContaining({ key: 'pro', isActive: true, object: 'entitlement' })]);
});

it('an attacker key cannot grant: a publishable key on the server route is refused', async () => {
  const identified = await identify(`e2e-victim-${run}`, `e2e-victim-device-${run}`);
  const attempt = await api('POST', `/v1/server/customers/${identified.body.serviceCustomerId}/grant`, IOS_TEST_PUBLISHABLE, { entitlementKey: 'pro', duration: 'lifetime', reason: 'An attacker tries to grant themselves pro' }, IOS_BUNDLE);
  expect(attempt.status).toBe(401);
  expect((await entitlementsOf(`e2e-victim-${run}`)).body.data).toEqual([]);
});

it('events → the identity-resolution task stores them with their customer', async () => {
  const userId = `e2e-events-${run}`;
  const customerId = (await identify(userId, `e2e-events-device-${run}`)).body.serviceCustomerId;
  const eventId = `e2e-evt-${run}`;
  const landed = await api('POST', '/v1/events', IOS_TEST_PUBLISHABLE, { events: [{ name: 'e2e_opened', eventId, developerUserId: userId }] }, { ...IOS_BUNDLE, 'Idempotency-Key': `e2e-batch-${run}` });
  expect(landed.status).toBe(202);
  expect(landed.body).toMatchObject({ received: 1, env: 'sandbox' });

  const stored = db().collection('projects').doc(PROJECT).collection('envs').doc('test').collection(EVENTS).doc(eventDocId(eventId)).withConverter(storedEventConverter);
  const event = await eventually('the identity-resolution task to store the event', async () => {
    const snapshot = await stored.get();
    return snapshot.exists ? snapshot.data() : undefined;
  });
  expect(event).toMatchObject({ name: 'e2e_opened', serviceCustomerId: customerId });
});

it('forget → the erasure task → the customer is erased', async () => {
  const userId = `e2e-forget-${run}`;
  const customerId = (await identify(userId, `e2e-forget-device-${run}`)).body.serviceCustomerId;
  expect((await entitlementsOf(userId)).body.serviceCustomerId).toBe(customerId);

  const forgot = await api('POST', '/v1/identity/forget', WEB_TEST_SECRET, { userId });
  expect(forgot.status).toBe(200);
  expect(forgot.body).toMatchObject({ object: 'forgot', serviceCustomerId: customerId, env: 'sandbox' });

  await eventually('the erasure task to erase the customer', async () => (await entitlementsOf(userId)).body.serviceCustomerId === '');
  const read = await entitlementsOf(userId);
  expect(read.body).toMatchObject({ data: [], serviceCustomerId: '' });
});
