/**
 * Guarantees of POST /v1/webhooks/apple/{projectId} (App Store Server Notifications V2): every
 * notification type's effect on entitlements (subscribe, renew, fail to renew with and without
 * grace, grace expiry, expiry, refund, family-sharing revoke, renewal status and plan changes);
 * verification by Apple's library against the configured root (forged, expired, wrong bundle:
 * 401, logged with the request id, nothing written under any id it names); de-duplication on
 * notificationUUID; out-of-order delivery never regresses state; `Production` lands in
 * production, anything else in sandbox, and neither touches the other.
 */
import { randomUUID } from 'node:crypto';
import { DAY } from '../../functions/src/clock';
import { linkHints } from '../../functions/src/identity/repository';
import { railLogs } from '../../functions/src/rails/logs';
import { AppleChain } from './support/appleChain';
import { renewalPayload, signedNotification, transactionPayload, type NotificationFields, type TransactionFields } from './support/applePayloads';
import { activeKeys, auditOf, createRailsWorld, customerOf, entitlementsOf, postApple, storedDocuments, subscriptionOf, type RailsWorld } from './support/railsWorld';
import { expectError } from '../support/harness';

let world: RailsWorld;
beforeAll(async () => {
  world = await createRailsWorld();
});
afterAll(async () => {
  await world.stop();
});

const T0 = Date.now();
let tick = 0;
/** The service's (manual) clock: access is judged against it. */
const now = () => world.service.clock.now();
/** Strictly increasing signed dates, so each notification is newer than the last. */
const nextSignedDate = () => T0 + (tick += 1000);

function notify(fields: NotificationFields) {
  const signed = signedNotification(world.apple, { signedDate: nextSignedDate(), ...fields });
  return { ...signed, send: () => postApple(world, signed.signedPayload) };
}

/** A fresh subscription bought with SUBSCRIBED/INITIAL_BUY; returns its ids and customer. */
async function subscribe(fields: TransactionFields = {}, environment: 'Sandbox' | 'Production' = 'Sandbox') {
  const txn = transactionPayload({ environment, ...fields });
  const otx = txn.originalTransactionId as string;
  const res = await notify({ notificationType: 'SUBSCRIBED', subtype: 'INITIAL_BUY', environment, transaction: txn, status: 1 }).send();
  expect(res.status).toBe(200);
  const env = environment === 'Production' ? 'live' : 'test';
  const customerId = (await customerOf(world, env, 'apple_otx', otx))!;
  return { txn, otx, customerId, env } as const;
}

const later = (txn: Record<string, unknown>, fields: TransactionFields) =>
  transactionPayload({ originalTransactionId: txn.originalTransactionId as string, environment: txn.environment as string, productId: txn.productId as string, ...fields });

describe('notification types', () => {
  it('SUBSCRIBED provisions, answers 200 and writes one audit entry', async () => {
    const txn = transactionPayload();
    const { signedPayload, notificationUUID } = signedNotification(world.apple, { notificationType: 'SUBSCRIBED', subtype: 'INITIAL_BUY', transaction: txn, status: 1, signedDate: nextSignedDate() });
    const res = await postApple(world, signedPayload);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'rail_notification', eventId: notificationUUID, env: 'sandbox', decision: 'applied', reason: 'created_active', duplicate: false });
    const customerId = (await customerOf(world, 'test', 'apple_otx', txn.originalTransactionId as string))!;
    expect(customerId).toMatch(/^cdcust_/);
    expect(activeKeys(await entitlementsOf(world, 'test', customerId))).toEqual(['pro']);
    expect(await auditOf(world, 'test', notificationUUID)).toMatchObject({
      eventId: notificationUUID,
      rail: 'apple',
      env: 'test',
      eventType: 'apple.SUBSCRIBED.INITIAL_BUY',
      customerId,
      subscriptionId: txn.originalTransactionId,
      decision: 'applied',
      fromState: null,
      toState: 'active',
      signatureVerified: true,
      reconciledWithProvider: false,
      rawEventReceivedAt: expect.any(Number),
      processedAt: expect.any(Number),
    });
  });

  it('binds a purchase to the customer identify linked through its appAccountToken', async () => {
    const token = randomUUID();
    const { customerId } = await linkHints(world.scope('test'), [{ kind: 'developer', id: `u_${token}` }, { kind: 'apple_aat', id: token }], 'self_asserted', world.service.clock.now());
    const sub = await subscribe({ appAccountToken: token });
    expect(sub.customerId).toBe(customerId);
  });

  it('DID_RENEW extends access to the new expiry', async () => {
    const sub = await subscribe({ expiresDate: now() + 2 * DAY });
    const renewal = later(sub.txn, { expiresDate: now() + 32 * DAY });
    expect((await notify({ notificationType: 'DID_RENEW', transaction: renewal, status: 1 }).send()).status).toBe(200);
    const [pro] = await entitlementsOf(world, 'test', sub.customerId);
    expect(pro).toMatchObject({ key: 'pro', isActive: true, validUntil: Math.floor((renewal.expiresDate as number) / 1000) });
  });

  it('DID_FAIL_TO_RENEW without grace ends access; DID_RENEW with BILLING_RECOVERY restores it', async () => {
    const sub = await subscribe({ expiresDate: now() - 1000, purchaseDate: now() - 31 * DAY });
    const failed = await notify({
      notificationType: 'DID_FAIL_TO_RENEW',
      transaction: sub.txn,
      renewal: renewalPayload({ originalTransactionId: sub.otx, isInBillingRetryPeriod: true }),
      status: 3,
    }).send();
    expect(failed.body).toMatchObject({ decision: 'applied', reason: 'active_to_billing_retry' });
    expect(activeKeys(await entitlementsOf(world, 'test', sub.customerId))).toEqual([]);
    const recovered = later(sub.txn, { expiresDate: now() + 30 * DAY });
    await notify({ notificationType: 'DID_RENEW', subtype: 'BILLING_RECOVERY', transaction: recovered, status: 1 }).send();
    expect(activeKeys(await entitlementsOf(world, 'test', sub.customerId))).toEqual(['pro']);
  });

  it('DID_FAIL_TO_RENEW with GRACE_PERIOD keeps access until the grace period ends; GRACE_PERIOD_EXPIRED ends it', async () => {
    const sub = await subscribe({ expiresDate: now() - 1000, purchaseDate: now() - 31 * DAY });
    const graceEnd = now() + 6 * DAY;
    await notify({
      notificationType: 'DID_FAIL_TO_RENEW',
      subtype: 'GRACE_PERIOD',
      transaction: sub.txn,
      renewal: renewalPayload({ originalTransactionId: sub.otx, gracePeriodExpiresDate: graceEnd, isInBillingRetryPeriod: true }),
      status: 4,
    }).send();
    const [pro] = await entitlementsOf(world, 'test', sub.customerId);
    expect(pro).toMatchObject({ isActive: true, validUntil: Math.floor(graceEnd / 1000) });
    expect((await subscriptionOf(world, 'test', 'apple', sub.otx))!.state).toBe('grace');
    await notify({ notificationType: 'GRACE_PERIOD_EXPIRED', transaction: sub.txn, renewal: renewalPayload({ originalTransactionId: sub.otx, isInBillingRetryPeriod: true }), status: 3 }).send();
    expect(activeKeys(await entitlementsOf(world, 'test', sub.customerId))).toEqual([]);
  });

  it('EXPIRED ends access', async () => {
    const sub = await subscribe({ expiresDate: now() - 1000, purchaseDate: now() - 31 * DAY });
    const res = await notify({ notificationType: 'EXPIRED', subtype: 'VOLUNTARY', transaction: sub.txn, renewal: renewalPayload({ originalTransactionId: sub.otx, autoRenewStatus: 0 }), status: 2 }).send();
    expect(res.body.reason).toBe('active_to_expired');
    expect(activeKeys(await entitlementsOf(world, 'test', sub.customerId))).toEqual([]);
    expect((await subscriptionOf(world, 'test', 'apple', sub.otx))!.state).toBe('expired');
  });

  it('REFUND takes access back at once', async () => {
    const sub = await subscribe();
    const refunded = { ...sub.txn, revocationDate: now(), revocationReason: 0, signedDate: now() };
    const res = await notify({ notificationType: 'REFUND', transaction: refunded, status: 5 }).send();
    expect(res.body).toMatchObject({ decision: 'applied', reason: 'active_to_refunded' });
    expect(activeKeys(await entitlementsOf(world, 'test', sub.customerId))).toEqual([]);
    expect((await subscriptionOf(world, 'test', 'apple', sub.otx))).toMatchObject({ state: 'refunded', revokedAt: refunded.revocationDate });
  });

  it('REVOKE (family sharing withdrawn) takes the organizer’s family-shared access back', async () => {
    const organizerToken = randomUUID();
    const { customerId } = await linkHints(world.scope('test'), [{ kind: 'apple_aat', id: organizerToken }], 'self_asserted', world.service.clock.now());
    const txn = transactionPayload({ inAppOwnershipType: 'FAMILY_SHARED', appAccountToken: organizerToken });
    await notify({ notificationType: 'SUBSCRIBED', subtype: 'INITIAL_BUY', transaction: txn, status: 1 }).send();
    expect(activeKeys(await entitlementsOf(world, 'test', customerId!))).toEqual(['pro']);
    // A family-shared purchase is never linked to anyone's identity.
    expect(await customerOf(world, 'test', 'apple_otx', txn.originalTransactionId as string)).toBeNull();
    const revoked = { ...txn, revocationDate: now(), signedDate: now() };
    const res = await notify({ notificationType: 'REVOKE', transaction: revoked, status: 5 }).send();
    expect(res.body.reason).toBe('active_to_revoked');
    expect(activeKeys(await entitlementsOf(world, 'test', customerId!))).toEqual([]);
  });

  it('a family-shared purchase whose owner is unknown is recorded without binding anyone', async () => {
    const txn = transactionPayload({ inAppOwnershipType: 'FAMILY_SHARED' });
    const res = await notify({ notificationType: 'SUBSCRIBED', subtype: 'INITIAL_BUY', transaction: txn, status: 1 }).send();
    expect(res.body).toMatchObject({ decision: 'no_op', reason: 'customer_unbound' });
    expect(await subscriptionOf(world, 'test', 'apple', txn.originalTransactionId as string)).toMatchObject({ customerId: null, state: 'active' });
  });

  it('DID_CHANGE_RENEWAL_STATUS records the renewal intent without changing access', async () => {
    const sub = await subscribe();
    const res = await notify({ notificationType: 'DID_CHANGE_RENEWAL_STATUS', subtype: 'AUTO_RENEW_DISABLED', transaction: sub.txn, renewal: renewalPayload({ originalTransactionId: sub.otx, autoRenewStatus: 0 }), status: 1 }).send();
    expect(res.body).toMatchObject({ decision: 'no_op', reason: 'already_current' });
    expect((await subscriptionOf(world, 'test', 'apple', sub.otx))!.willRenew).toBe(false);
    expect(activeKeys(await entitlementsOf(world, 'test', sub.customerId))).toEqual(['pro']);
  });

  it('DID_CHANGE_RENEWAL_PREF: an upgrade changes the entitlements now, a downgrade waits for the renewal', async () => {
    const sub = await subscribe();
    const downgrade = await notify({ notificationType: 'DID_CHANGE_RENEWAL_PREF', subtype: 'DOWNGRADE', transaction: sub.txn, renewal: renewalPayload({ originalTransactionId: sub.otx, productId: 'pro_basic' }), status: 1 }).send();
    expect(downgrade.body.decision).toBe('no_op');
    const upgraded = later(sub.txn, { productId: 'pro_yearly', expiresDate: now() + 365 * DAY });
    const upgrade = await notify({ notificationType: 'DID_CHANGE_RENEWAL_PREF', subtype: 'UPGRADE', transaction: upgraded, status: 1 }).send();
    expect(upgrade.body.decision).toBe('applied');
    expect(activeKeys(await entitlementsOf(world, 'test', sub.customerId))).toEqual(['cloud_sync', 'pro']);
    expect((await subscriptionOf(world, 'test', 'apple', sub.otx))!.productId).toBe('pro_yearly');
  });

  it('a product change ends the keys the old product granted and the new one does not', async () => {
    const sub = await subscribe({ productId: 'pro_yearly' });
    expect(activeKeys(await entitlementsOf(world, 'test', sub.customerId))).toEqual(['cloud_sync', 'pro']);
    await notify({ notificationType: 'DID_CHANGE_RENEWAL_PREF', subtype: 'UPGRADE', transaction: later(sub.txn, { productId: 'pro_monthly' }), status: 1 }).send();
    expect(activeKeys(await entitlementsOf(world, 'test', sub.customerId))).toEqual(['pro']);
  });

  it('answers a TEST notification with a recorded no-op', async () => {
    const { signedPayload, notificationUUID } = signedNotification(world.apple, { notificationType: 'TEST', signedDate: nextSignedDate() });
    const res = await postApple(world, signedPayload);
    expect(res.body).toMatchObject({ decision: 'no_op', reason: 'test_notification' });
    expect(await auditOf(world, 'test', notificationUUID)).toMatchObject({ decision: 'no_op', signatureVerified: true });
  });
});

describe('delivery', () => {
  it('de-duplicates on notificationUUID: a redelivery changes nothing and says so', async () => {
    const txn = transactionPayload();
    const { signedPayload, notificationUUID } = signedNotification(world.apple, { notificationType: 'SUBSCRIBED', subtype: 'INITIAL_BUY', transaction: txn, status: 1, signedDate: nextSignedDate() });
    expect((await postApple(world, signedPayload)).body.duplicate).toBe(false);
    const audit = await auditOf(world, 'test', notificationUUID);
    world.service.clock.advance(1000);
    const again = await postApple(world, signedPayload);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ decision: 'applied', duplicate: true });
    expect(await auditOf(world, 'test', notificationUUID)).toEqual(audit);
  });

  it('never lets an older notification overwrite newer state', async () => {
    const sub = await subscribe({ expiresDate: now() + 2 * DAY });
    const renewed = later(sub.txn, { expiresDate: now() + 40 * DAY });
    const newer = notify({ notificationType: 'DID_RENEW', transaction: renewed, status: 1 });
    const older = signedNotification(world.apple, { notificationType: 'EXPIRED', subtype: 'VOLUNTARY', transaction: sub.txn, status: 2, signedDate: T0 - 60_000 });
    await newer.send();
    const stale = await postApple(world, older.signedPayload);
    expect(stale.body).toMatchObject({ decision: 'no_op', reason: 'out_of_order' });
    const [pro] = await entitlementsOf(world, 'test', sub.customerId);
    expect(pro).toMatchObject({ isActive: true, validUntil: Math.floor((renewed.expiresDate as number) / 1000) });
  });
});

describe('verification', () => {
  it('rejects a forged notification (401), logs it with the request id, writes nothing and never occupies the real event id', async () => {
    const forger = new AppleChain();
    const uuid = randomUUID();
    const txn = transactionPayload();
    const forged = signedNotification(forger, { notificationType: 'SUBSCRIBED', transaction: txn, status: 1, notificationUUID: uuid, signedDate: nextSignedDate() });
    const before = await storedDocuments(world);
    const logged = jest.spyOn(railLogs, 'notificationUnverified');
    try {
      const res = await postApple(world, forged.signedPayload);
      expectError(res, 401, 'authentication_error', 'invalid_api_key');
      expect(logged).toHaveBeenCalledWith(res.body.error.request_id, 'apple', world.project.projectId, expect.stringMatching(/^signature_invalid: /));
    } finally {
      logged.mockRestore();
    }
    expect(await storedDocuments(world)).toEqual(before);
    expect(await auditOf(world, 'test', uuid)).toBeNull();
    expect(await customerOf(world, 'test', 'apple_otx', txn.originalTransactionId as string)).toBeNull();
    // The genuine notification with that id is processed normally afterwards.
    const genuine = signedNotification(world.apple, { notificationType: 'SUBSCRIBED', transaction: txn, status: 1, notificationUUID: uuid, signedDate: nextSignedDate() });
    expect((await postApple(world, genuine.signedPayload)).body).toMatchObject({ decision: 'applied', duplicate: false });
  });

  it('rejects a genuine payload whose nested transaction was re-signed by someone else', async () => {
    const txn = transactionPayload();
    const payload = signedNotification(world.apple, { notificationType: 'SUBSCRIBED', status: 1, signedDate: nextSignedDate() });
    const decoded = JSON.parse(Buffer.from(payload.signedPayload.split('.')[1], 'base64url').toString());
    decoded.data.signedTransactionInfo = new AppleChain().sign(txn);
    expectError(await postApple(world, world.apple.sign(decoded)), 401, 'authentication_error', 'invalid_api_key');
    expect(await customerOf(world, 'test', 'apple_otx', txn.originalTransactionId as string)).toBeNull();
  });

  it('rejects a notification signed while the leaf certificate had expired (401)', async () => {
    const expired = new AppleChain({ leafNotBefore: now() - 400 * DAY, leafNotAfter: now() - DAY });
    const { writeRailConfig } = await import('../../functions/src/rails/config');
    const { APP_APPLE_ID, APPLE_BUNDLE_ID } = await import('./support/applePayloads');
    const { createTestService, seedProject } = await import('../support/harness');
    const service = createTestService({ rails: { appleOnlineChecks: false } });
    const other = await seedProject(service);
    const { EnvScope } = await import('../../functions/src/store/scope');
    await writeRailConfig(new EnvScope(service.deps.db, other.projectId, 'test'), 'apple', { bundleId: APPLE_BUNDLE_ID, appAppleId: APP_APPLE_ID, rootCertificates: [expired.rootBase64] }, service.clock.now());
    const { signedPayload } = signedNotification(expired, { notificationType: 'SUBSCRIBED', transaction: transactionPayload(), status: 1 });
    const res = await service.request().post(`/v1/webhooks/apple/${other.projectId}`).send({ signedPayload });
    expectError(res, 401, 'authentication_error', 'invalid_api_key');
  });

  it('rejects a notification for another bundle id (401)', async () => {
    const res = await notify({ notificationType: 'SUBSCRIBED', bundleId: 'com.other.app', transaction: transactionPayload({ bundleId: 'com.other.app' }), status: 1 }).send();
    expectError(res, 401, 'authentication_error', 'invalid_api_key');
  });

  it('answers 400 for a body without signedPayload and for an unknown project', async () => {
    expectError(await world.service.request().post(`/v1/webhooks/apple/${world.project.projectId}`).send({}), 400, 'invalid_request_error', 'invalid_param_value');
    const { signedPayload } = signedNotification(world.apple, { notificationType: 'TEST' });
    expectError(await world.service.request().post('/v1/webhooks/apple/proj_doesnotexist').send({ signedPayload }), 400, 'invalid_request_error', 'invalid_param_value');
  });
});

describe('environments', () => {
  it('lands Production in production and Sandbox in sandbox, never the other', async () => {
    const production = await subscribe({}, 'Production');
    expect(production.env).toBe('live');
    expect(activeKeys(await entitlementsOf(world, 'live', production.customerId))).toEqual(['pro']);
    expect(await customerOf(world, 'test', 'apple_otx', production.otx)).toBeNull();
    expect(await subscriptionOf(world, 'test', 'apple', production.otx)).toBeNull();

    // A sandbox notification about the same subscription id never touches the production record.
    const sandboxRefund = { ...transactionPayload({ originalTransactionId: production.otx, environment: 'Sandbox' }), revocationDate: now() };
    const res = await notify({ notificationType: 'REFUND', transaction: sandboxRefund, status: 5 }).send();
    expect(res.body.env).toBe('sandbox');
    expect(activeKeys(await entitlementsOf(world, 'live', production.customerId))).toEqual(['pro']);
    expect((await subscriptionOf(world, 'live', 'apple', production.otx))!.state).toBe('active');
  });

  it('rejects a payload whose environment claim its transaction contradicts', async () => {
    // Claims Production on the envelope, carries a Sandbox transaction: the production verifier refuses it.
    const res = await notify({ notificationType: 'SUBSCRIBED', environment: 'Production', transaction: transactionPayload({ environment: 'Sandbox' }), status: 1 }).send();
    expectError(res, 401, 'authentication_error', 'invalid_api_key');
  });
});
