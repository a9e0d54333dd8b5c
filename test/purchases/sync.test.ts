/**
 * Guarantees of POST /v1/purchases/sync (and /v1/purchases): only the App Store rail (Stripe and
 * Google point to their webhooks); transactions verified by Apple's library against the
 * configured root, in the environment the payload claims first (one verification for a genuine
 * transaction), then the other — forged, expired, markerless or wrong-bundle
 * ones are 401 invalid_api_key; the payload's environment must be the key's (403 env_mismatch);
 * the customer resolves through originalTransactionId or appAccountToken; a re-sent transaction
 * changes nothing; an older transaction never regresses newer state; a family-shared
 * transaction is never bound to the caller; the projection and one audit entry commit together;
 * a verified transaction whose ids cannot name a document or whose strings are not well-formed
 * Unicode is the caller's 400 invalid_param_value (never a slow 500) and writes nothing.
 */
import { randomUUID } from 'node:crypto';
import { SignedDataVerifier } from '@apple/app-store-server-library';
import type { AuditEntry } from '../../functions/src/audit/model';
import { DAY } from '../../functions/src/clock';
import { linkHints } from '../../functions/src/identity/repository';
import { syncEventId } from '../../functions/src/purchases/syncService';
import { describeSecuredRoute } from '../support/securitySuite';
import { createTestService, expectError, lockHeaders, seedProject } from '../support/harness';
import { AppleChain } from '../rails/support/appleChain';
import { renewalPayload, transactionPayload, type TransactionFields } from '../rails/support/applePayloads';
import { activeKeys, auditOf, createRailsWorld, customerOf, entitlementsOf, storedDocuments, subscriptionOf, type RailsWorld } from '../rails/support/railsWorld';

describeSecuredRoute({ method: 'POST', path: '/v1/purchases/sync', key: 'any', body: { rail: 'apple', signedTransactionInfo: 'a.b.c' } });

let world: RailsWorld;
beforeAll(async () => {
  world = await createRailsWorld();
});
afterAll(async () => {
  await world.stop();
});

const uuid = () => randomUUID();

function sync(body: Record<string, unknown>, options: { env?: 'test' | 'live'; path?: string; idempotencyKey?: string } = {}) {
  const req = world.service
    .request()
    .post(options.path ?? '/v1/purchases/sync')
    .set('Authorization', `Bearer ${world.project.ios[options.env ?? 'test'].publishable}`)
    .set(lockHeaders('ios'));
  if (options.idempotencyKey) req.set('Idempotency-Key', options.idempotencyKey);
  return req.send(body);
}

const signed = (fields: TransactionFields = {}, chain: AppleChain = world.apple) => chain.sign(transactionPayload(fields));

describe('rails and body', () => {
  it.each(['stripe', 'google'])('rejects rail %s with 400 invalid_param_value pointing to its webhook', async (rail) => {
    const res = await sync({ rail, signedTransactionInfo: signed() });
    expectError(res, 400, 'invalid_request_error', 'invalid_param_value');
    expect(res.body.error.message).toContain(`/v1/webhooks/${rail}/`);
  });

  it('answers a Play purchase (as the React Native SDK sends it) by pointing to the Play webhook, before any other field', async () => {
    // The SDK sends the purchase token and no signedTransactionInfo: the rail is what is wrong.
    const res = await sync({ rail: 'google', purchaseToken: 'token-from-play', productId: 'pro_monthly' });
    expectError(res, 400, 'invalid_request_error', 'invalid_param_value');
    expect(res.body.error.message).toMatch(/^Invalid value for `rail`: Google Play purchases arrive through the Play webhook/);
    expect(res.body.error.message).not.toContain('signedTransactionInfo');
    const stripe = await sync({ rail: 'stripe' });
    expectError(stripe, 400, 'invalid_request_error', 'invalid_param_value');
    expect(stripe.body.error.message).toContain('/v1/webhooks/stripe/');
  });

  it('rejects an unknown rail and a malformed body with 400 invalid_param_value', async () => {
    expectError(await sync({ rail: 'paypal', signedTransactionInfo: signed() }), 400, 'invalid_request_error', 'invalid_param_value');
    expectError(await sync({ rail: 'apple' }), 400, 'invalid_request_error', 'invalid_param_value');
    expectError(await sync({ signedTransactionInfo: signed() }), 400, 'invalid_request_error', 'invalid_param_value');
    expectError(await sync({ rail: 'apple', signedTransactionInfo: 'not-a-jws' }), 400, 'invalid_request_error', 'invalid_param_value');
    expectError(await sync({ rail: 'apple', signedTransactionInfo: signed(), appAccountToken: 'NOT-A-UUID' }), 400, 'invalid_request_error', 'invalid_param_value');
  });

  it('rejects a project without App Store configuration with 400 invalid_param_value', async () => {
    const service = createTestService({ rails: { appleOnlineChecks: false } });
    const bare = await seedProject(service);
    const res = await service
      .request()
      .post('/v1/purchases/sync')
      .set('Authorization', `Bearer ${bare.ios.test.publishable}`)
      .set(lockHeaders('ios'))
      .send({ rail: 'apple', signedTransactionInfo: signed() });
    expectError(res, 400, 'invalid_request_error', 'invalid_param_value');
  });
});

describe('verification', () => {
  it('provisions a verified sandbox purchase: purchase_result, projection and audit entry', async () => {
    const txn = transactionPayload({ productId: 'pro_yearly' });
    const res = await sync({ rail: 'apple', signedTransactionInfo: world.apple.sign(txn) });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({ object: 'purchase_result', env: 'sandbox' });
    expect(res.body.idempotent_replay).toBeUndefined();
    expect(res.body.serviceCustomerId).toMatch(/^cdcust_/);
    expect(res.body.entitlements.map((e: { key: string }) => e.key)).toEqual(['cloud_sync', 'pro']);
    expect(res.body.entitlements[0]).toEqual({
      object: 'entitlement',
      key: 'cloud_sync',
      isActive: true,
      validUntil: Math.floor((txn.expiresDate as number) / 1000),
      source: { rail: 'apple', productId: 'pro_yearly', subscriptionId: txn.originalTransactionId },
      updatedAt: expect.any(Number),
    });
    const customerId = res.body.serviceCustomerId;
    expect(activeKeys(await entitlementsOf(world, 'test', customerId))).toEqual(['cloud_sync', 'pro']);
    expect(await customerOf(world, 'test', 'apple_otx', txn.originalTransactionId as string)).toBe(customerId);
    const audit = (await auditOf(world, 'test', syncEventId(txn.transactionId as string))) as AuditEntry;
    expect(audit).toMatchObject({
      rail: 'apple',
      env: 'test',
      eventType: 'apple.purchase_sync',
      customerId,
      subscriptionId: txn.originalTransactionId,
      decision: 'applied',
      fromState: null,
      toState: 'active',
      signatureVerified: true,
      reconciledWithProvider: false,
    });
    const record = await subscriptionOf(world, 'test', 'apple', txn.originalTransactionId as string);
    expect(record).toMatchObject({ state: 'active', productId: 'pro_yearly', customerId, lastEventId: syncEventId(txn.transactionId as string), periodEnd: txn.expiresDate });
    // Nothing landed in production.
    expect(await auditOf(world, 'live', syncEventId(txn.transactionId as string))).toBeNull();
  });

  it('serves the legacy path /v1/purchases and accepts a secret key', async () => {
    const res = await world.service
      .request()
      .post('/v1/purchases')
      .set('Authorization', `Bearer ${world.project.web.test.secret}`)
      .send({ rail: 'apple', signedTransactionInfo: signed() });
    expect(res.status).toBe(200);
    expect(res.body.object).toBe('purchase_result');
  });

  it('rejects a transaction signed by a chain the project does not trust: 401 invalid_api_key', async () => {
    expectError(await sync({ rail: 'apple', signedTransactionInfo: signed({}, new AppleChain()) }), 401, 'authentication_error', 'invalid_api_key');
  });

  it('rejects a tampered payload: 401 invalid_api_key', async () => {
    const [header, , signature] = signed().split('.');
    const forgedBody = Buffer.from(JSON.stringify(transactionPayload({ productId: 'pro_yearly' }))).toString('base64url');
    expectError(await sync({ rail: 'apple', signedTransactionInfo: `${header}.${forgedBody}.${signature}` }), 401, 'authentication_error', 'invalid_api_key');
  });

  it('rejects a chain without Apple’s marker extensions even when its root is trusted: 401', async () => {
    const markerless = new AppleChain({ withoutMarkers: true });
    const service = createTestService({ rails: { appleOnlineChecks: false } });
    const other = await seedProject(service);
    const { writeRailConfig } = await import('../../functions/src/rails/config');
    const { EnvScope } = await import('../../functions/src/store/scope');
    await writeRailConfig(new EnvScope(service.deps.db, other.projectId, 'test'), 'apple', { bundleId: 'com.example.app', appAppleId: 1, rootCertificates: [markerless.rootBase64] }, service.clock.now());
    const res = await service
      .request()
      .post('/v1/purchases/sync')
      .set('Authorization', `Bearer ${other.ios.test.secret}`)
      .send({ rail: 'apple', signedTransactionInfo: markerless.sign(transactionPayload()) });
    expectError(res, 401, 'authentication_error', 'invalid_api_key');
  });

  it('rejects a transaction signed while its leaf certificate had expired: 401', async () => {
    const expired = new AppleChain({ leafNotBefore: Date.now() - 400 * DAY, leafNotAfter: Date.now() - 10 * DAY });
    // Same trusted root: a fresh chain under the world's root is not possible, so trust this one too.
    const service = createTestService({ rails: { appleOnlineChecks: false } });
    const other = await seedProject(service);
    const { writeRailConfig } = await import('../../functions/src/rails/config');
    const { EnvScope } = await import('../../functions/src/store/scope');
    await writeRailConfig(new EnvScope(service.deps.db, other.projectId, 'test'), 'apple', { bundleId: 'com.example.app', appAppleId: 1, rootCertificates: [expired.rootBase64] }, service.clock.now());
    const send = (jws: string) => service.request().post('/v1/purchases/sync').set('Authorization', `Bearer ${other.ios.test.secret}`).send({ rail: 'apple', signedTransactionInfo: jws });
    expectError(await send(expired.sign(transactionPayload())), 401, 'authentication_error', 'invalid_api_key');
    // Signed while the leaf was valid, the same chain verifies (the check is against the signed date).
    expect((await send(expired.sign(transactionPayload({ signedDate: Date.now() - 100 * DAY, purchaseDate: Date.now() - 101 * DAY })))).status).toBe(200);
  });

  it('rejects a transaction of another bundle id: 401', async () => {
    expectError(await sync({ rail: 'apple', signedTransactionInfo: signed({ bundleId: 'com.other.app' }) }), 401, 'authentication_error', 'invalid_api_key');
  });

  it('derives the environment from the payload: production needs a live key, sandbox a test key (403 env_mismatch)', async () => {
    expectError(await sync({ rail: 'apple', signedTransactionInfo: signed({ environment: 'Production' }) }), 403, 'permission_error', 'env_mismatch');
    expectError(await sync({ rail: 'apple', signedTransactionInfo: signed({ environment: 'Sandbox' }) }, { env: 'live' }), 403, 'permission_error', 'env_mismatch');
    const txn = transactionPayload({ environment: 'Production' });
    const res = await sync({ rail: 'apple', signedTransactionInfo: world.apple.sign(txn) }, { env: 'live' });
    expect(res.status).toBe(200);
    expect(res.body.env).toBe('production');
    expect(await auditOf(world, 'live', syncEventId(txn.transactionId as string))).toMatchObject({ env: 'live', decision: 'applied' });
    expect(await auditOf(world, 'test', syncEventId(txn.transactionId as string))).toBeNull();
  });

  it('verifies a genuine transaction once, in the environment it claims (issue 23: CPU per sync)', async () => {
    const verifications = jest.spyOn(SignedDataVerifier.prototype, 'verifyAndDecodeTransaction');
    try {
      expect((await sync({ rail: 'apple', signedTransactionInfo: signed({ environment: 'Sandbox' }) })).status).toBe(200);
      expect(verifications).toHaveBeenCalledTimes(1);
      expect((await sync({ rail: 'apple', signedTransactionInfo: signed({ environment: 'Production' }) }, { env: 'live' })).status).toBe(200);
      expect(verifications).toHaveBeenCalledTimes(2);
      // A claim is only an order: a payload re-written to claim the other environment verifies nowhere.
      const [header, payload, signature] = signed({ environment: 'Sandbox' }).split('.');
      const claimsProduction = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), environment: 'Production' })).toString('base64url');
      expectError(await sync({ rail: 'apple', signedTransactionInfo: `${header}.${claimsProduction}.${signature}` }, { env: 'live' }), 401, 'authentication_error', 'invalid_api_key');
    } finally {
      verifications.mockRestore();
    }
  });

  it('ignores renewal info that fails verification (non-fatal)', async () => {
    const txn = transactionPayload();
    const forgedRenewal = new AppleChain().sign(renewalPayload({ originalTransactionId: txn.originalTransactionId as string }));
    const res = await sync({ rail: 'apple', signedTransactionInfo: world.apple.sign(txn), signedRenewalInfo: forgedRenewal });
    expect(res.status).toBe(200);
    expect(activeKeys(res.body.entitlements)).toEqual(['pro']);
  });
});

describe('verified transactions the service cannot use', () => {
  it.each([
    ['a lone surrogate in transactionId', { transactionId: '2000\ud800' }, 'transactionId'],
    ['a lone surrogate in appAccountToken', { appAccountToken: '\udc00' }, 'appAccountToken'],
    ['a path as originalTransactionId', { originalTransactionId: '1/../2' }, 'originalTransactionId'],
    ['a reserved originalTransactionId', { originalTransactionId: '__otx__' }, 'originalTransactionId'],
    ['a lone surrogate in productId', { productId: 'pro\ud83d' }, 'productId'],
  ])('%s: 400 invalid_param_value naming signedTransactionInfo, nothing written', async (_, fields, field) => {
    const before = await storedDocuments(world);
    const res = await sync({ rail: 'apple', signedTransactionInfo: world.apple.sign({ ...transactionPayload(), ...fields }) });
    expectError(res, 400, 'invalid_request_error', 'invalid_param_value');
    expect(res.body.error.message).toContain('signedTransactionInfo');
    expect(res.body.error.message).toContain(field);
    expect(await storedDocuments(world)).toEqual(before);
  });

  it('ignores renewal info with a string that is not well-formed Unicode (non-fatal)', async () => {
    const txn = transactionPayload();
    const renewal = { ...renewalPayload({ originalTransactionId: txn.originalTransactionId as string }), autoRenewProductId: 'pro\ud800' };
    const res = await sync({ rail: 'apple', signedTransactionInfo: world.apple.sign(txn), signedRenewalInfo: world.apple.sign(renewal) });
    expect(res.status).toBe(200);
    expect(res.body.entitlements.map((e: { key: string }) => e.key)).toEqual(['pro']);
  });
});

describe('customers, re-sends and ordering', () => {
  it('binds to the customer identify linked through appAccountToken, and renewals follow originalTransactionId', async () => {
    const token = uuid();
    const { customerId } = await linkHints(world.scope('test'), [{ kind: 'developer', id: `user_${token}` }, { kind: 'apple_aat', id: token }], 'self_asserted', world.service.clock.now());
    const first = transactionPayload({ appAccountToken: token, expiresDate: Date.now() + 5 * DAY });
    const res = await sync({ rail: 'apple', signedTransactionInfo: world.apple.sign(first) });
    expect(res.body.serviceCustomerId).toBe(customerId);
    // The renewal carries no token: the originalTransactionId finds the customer.
    const renewal = transactionPayload({ originalTransactionId: first.originalTransactionId as string, expiresDate: Date.now() + 35 * DAY, signedDate: Date.now() + 1000 });
    const renewed = await sync({ rail: 'apple', signedTransactionInfo: world.apple.sign(renewal) });
    expect(renewed.body.serviceCustomerId).toBe(customerId);
    expect(renewed.body.entitlements[0].validUntil).toBe(Math.floor((renewal.expiresDate as number) / 1000));
  });

  it('uses the appAccountToken the app sends when the transaction carries none', async () => {
    const token = uuid();
    const { customerId } = await linkHints(world.scope('test'), [{ kind: 'apple_aat', id: token }], 'self_asserted', world.service.clock.now());
    const res = await sync({ rail: 'apple', signedTransactionInfo: signed(), appAccountToken: token });
    expect(res.body.serviceCustomerId).toBe(customerId);
  });

  it('treats a re-sent transaction as a no-op: same answer, audit entry untouched', async () => {
    const txn = transactionPayload();
    const jws = world.apple.sign(txn);
    const first = await sync({ rail: 'apple', signedTransactionInfo: jws });
    const audit = await auditOf(world, 'test', syncEventId(txn.transactionId as string));
    world.service.clock.advance(60_000);
    const again = await sync({ rail: 'apple', signedTransactionInfo: jws });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await auditOf(world, 'test', syncEventId(txn.transactionId as string))).toEqual(audit);
  });

  it('never lets an older transaction overwrite newer state (refund, then a stale re-send)', async () => {
    const now = Date.now();
    const original = transactionPayload({ signedDate: now - 10_000, expiresDate: now + 20 * DAY });
    const otx = original.originalTransactionId as string;
    const refunded = transactionPayload({ originalTransactionId: otx, transactionId: original.transactionId as string, signedDate: now, expiresDate: now + 20 * DAY, revocationDate: now - 1000 });
    // The refunded view arrives first (as a later, distinct sync would), then the stale one.
    const refundedRes = await sync({ rail: 'apple', signedTransactionInfo: world.apple.sign({ ...refunded, transactionId: `${original.transactionId}9` }) });
    expect(refundedRes.status).toBe(200);
    expect(refundedRes.body.entitlements).toEqual([]);
    const stale = await sync({ rail: 'apple', signedTransactionInfo: world.apple.sign(original) });
    expect(stale.status).toBe(200);
    expect(stale.body.entitlements).toEqual([]);
    expect(await auditOf(world, 'test', syncEventId(original.transactionId as string))).toMatchObject({ decision: 'no_op', reason: 'out_of_order' });
    expect((await subscriptionOf(world, 'test', 'apple', otx))!.state).toBe('refunded');
  });

  it('never binds a family-shared transaction to the caller’s identity', async () => {
    const callerToken = uuid();
    const { customerId: caller } = await linkHints(world.scope('test'), [{ kind: 'apple_aat', id: callerToken }], 'self_asserted', world.service.clock.now());
    const txn = transactionPayload({ inAppOwnershipType: 'FAMILY_SHARED' });
    const res = await sync({ rail: 'apple', signedTransactionInfo: world.apple.sign(txn), appAccountToken: callerToken });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'purchase_result', serviceCustomerId: '', entitlements: [] });
    expect(await entitlementsOf(world, 'test', caller!)).toEqual([]);
    expect(await customerOf(world, 'test', 'apple_otx', txn.originalTransactionId as string)).toBeNull();
    expect(await auditOf(world, 'test', syncEventId(txn.transactionId as string))).toMatchObject({ decision: 'no_op', reason: 'customer_unbound', customerId: null });
  });

  it('gives a family-shared transaction to the organizer its signed appAccountToken names', async () => {
    const organizerToken = uuid();
    const { customerId: organizer } = await linkHints(world.scope('test'), [{ kind: 'apple_aat', id: organizerToken }], 'self_asserted', world.service.clock.now());
    const txn = transactionPayload({ inAppOwnershipType: 'FAMILY_SHARED', appAccountToken: organizerToken });
    const res = await sync({ rail: 'apple', signedTransactionInfo: world.apple.sign(txn), appAccountToken: uuid() });
    // The family member's device learns nothing about the organizer.
    expect(res.body).toMatchObject({ serviceCustomerId: '', entitlements: [] });
    expect(activeKeys(await entitlementsOf(world, 'test', organizer!))).toEqual(['pro']);
  });
});
