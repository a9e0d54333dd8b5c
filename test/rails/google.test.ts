/**
 * Guarantees of POST /v1/webhooks/google/{projectId} (Play real-time developer notifications
 * pushed by Pub/Sub): the push's OIDC token is verified (issuer, audience, expiry, signing key,
 * service account) and a failure is 401, logged with the request id, and writes nothing; every subscription notification
 * type drives entitlements from the state re-read through `purchases.subscriptionsv2.get` with
 * the service account from the secret store; a voided purchase or a revocation takes access
 * back; license-tested purchases are reconciled into sandbox; duplicates change nothing; an
 * unreachable Play API leaves nothing recorded and the push is retried.
 */
import { randomUUID } from 'node:crypto';
import { DAY } from '../../functions/src/clock';
import { linkHints } from '../../functions/src/identity/repository';
import { purchaseTokenHash } from '../../functions/src/rails/http/googleNotification';
import { railLogs } from '../../functions/src/rails/logs';
import { expectError } from '../support/harness';
import { GoogleFake, nextPurchaseToken, playPurchase, pushBody } from './support/googleFake';
import { activeKeys, auditOf, createRailsWorld, customerOf, entitlementsOf, PLAY_PACKAGE, PLAY_SERVICE_ACCOUNT, postGoogle, storedDocuments, subscriptionOf, type RailsWorld } from './support/railsWorld';

let world: RailsWorld;
beforeAll(async () => {
  world = await createRailsWorld();
});
afterAll(async () => {
  await world.stop();
});

const now = () => world.service.clock.now();
let tick = 0;
const nextEventTime = () => now() + (tick += 1000);

function notification(purchaseToken: string, notificationType: number, eventTimeMillis = nextEventTime()) {
  return {
    version: '1.0',
    packageName: PLAY_PACKAGE,
    eventTimeMillis: String(eventTimeMillis),
    subscriptionNotification: { version: '1.0', notificationType, purchaseToken, subscriptionId: 'pro_monthly' },
  };
}

async function push(body: Record<string, unknown>, tokenFields: Partial<Parameters<GoogleFake['pushToken']>[0]> = {}) {
  const token = await world.google.pushToken({ audience: world.pushAudience, ...tokenFields });
  return postGoogle(world, body, token);
}

/** A purchase Play knows about, announced with SUBSCRIPTION_PURCHASED. */
async function purchase(fields: Parameters<typeof playPurchase>[0] = {}) {
  const token = nextPurchaseToken();
  world.google.purchases.set(token, playPurchase(fields));
  const res = await push(pushBody(notification(token, 4)));
  const env = fields.testPurchase ? 'test' : 'live';
  return { token, res, env, customerId: await customerOf(world, env, 'google_token', token) } as const;
}

describe('notifications drive entitlements', () => {
  it('SUBSCRIPTION_PURCHASED: state read from Play with the service account; the obfuscated account id names the customer', async () => {
    const { customerId } = await linkHints(world.scope('live'), [{ kind: 'developer', id: `user_${randomUUID()}` }], 'self_asserted', now());
    const expiry = now() + 30 * DAY;
    const bought = await purchase({ obfuscatedAccountId: customerId!, expiryTime: expiry });
    expect(bought.res.status).toBe(200);
    expect(bought.res.body).toMatchObject({ object: 'rail_notification', env: 'production', decision: 'applied', reason: 'created_active', duplicate: false });
    expect(bought.customerId).toBe(customerId);
    const [pro] = await entitlementsOf(world, 'live', customerId!);
    expect(pro).toMatchObject({ key: 'pro', isActive: true, validUntil: Math.floor(expiry / 1000), source: { rail: 'google', productId: 'pro_monthly', subscriptionId: purchaseTokenHash(bought.token) } });
    expect(await auditOf(world, 'live', bought.res.body.eventId)).toMatchObject({
      rail: 'google',
      eventType: 'google.SUBSCRIPTION_PURCHASED',
      customerId,
      subscriptionId: purchaseTokenHash(bought.token),
      decision: 'applied',
      signatureVerified: true,
      reconciledWithProvider: true,
    });
    expect(world.playCredentialsSeen).toContain(PLAY_SERVICE_ACCOUNT.client_email);
    expect(world.google.playRequests.some((r) => r.path.includes(`/applications/${PLAY_PACKAGE}/purchases/subscriptionsv2/tokens/`))).toBe(true);
    // The subscription is keyed by the token's hash; the record keeps no token.
    const record = await subscriptionOf(world, 'live', 'google', purchaseTokenHash(bought.token));
    expect(record).toMatchObject({ state: 'active', productId: 'pro_monthly', customerId });
    expect(JSON.stringify(record)).not.toContain(bought.token);
  });

  it('an unknown purchaser gets a customer of its own, linked by the purchase token', async () => {
    const bought = await purchase();
    expect(bought.customerId).toMatch(/^cdcust_/);
    expect(activeKeys(await entitlementsOf(world, 'live', bought.customerId!))).toEqual(['pro']);
  });

  const cases: [string, number, Record<string, unknown>, boolean][] = [
    ['SUBSCRIPTION_RECOVERED', 1, { state: 'SUBSCRIPTION_STATE_ACTIVE' }, true],
    ['SUBSCRIPTION_RENEWED', 2, { state: 'SUBSCRIPTION_STATE_ACTIVE', expiryTime: Date.now() + 60 * DAY }, true],
    ['SUBSCRIPTION_CANCELED (access until expiry)', 3, { state: 'SUBSCRIPTION_STATE_CANCELED', autoRenew: false }, true],
    ['SUBSCRIPTION_ON_HOLD', 5, { state: 'SUBSCRIPTION_STATE_ON_HOLD', expiryTime: Date.now() - DAY }, false],
    ['SUBSCRIPTION_IN_GRACE_PERIOD', 6, { state: 'SUBSCRIPTION_STATE_IN_GRACE_PERIOD', expiryTime: Date.now() + 3 * DAY }, true],
    ['SUBSCRIPTION_RESTARTED', 7, { state: 'SUBSCRIPTION_STATE_ACTIVE' }, true],
    ['SUBSCRIPTION_PRICE_CHANGE_CONFIRMED', 8, { state: 'SUBSCRIPTION_STATE_ACTIVE' }, true],
    ['SUBSCRIPTION_DEFERRED', 9, { state: 'SUBSCRIPTION_STATE_ACTIVE', expiryTime: Date.now() + 90 * DAY }, true],
    ['SUBSCRIPTION_PAUSED', 10, { state: 'SUBSCRIPTION_STATE_PAUSED' }, false],
    ['SUBSCRIPTION_PAUSE_SCHEDULE_CHANGED', 11, { state: 'SUBSCRIPTION_STATE_ACTIVE' }, true],
    ['SUBSCRIPTION_REVOKED', 12, { state: 'SUBSCRIPTION_STATE_EXPIRED', expiryTime: Date.now() + 10 * DAY }, false],
    ['SUBSCRIPTION_EXPIRED', 13, { state: 'SUBSCRIPTION_STATE_EXPIRED', expiryTime: Date.now() - DAY }, false],
    ['SUBSCRIPTION_PENDING_PURCHASE_CANCELED', 20, { state: 'SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED' }, false],
  ];
  it.each(cases)('%s: entitlement active = %s after the re-read', async (name, type, play, active) => {
    const bought = await purchase();
    world.google.purchases.set(bought.token, playPurchase(play as Parameters<typeof playPurchase>[0]));
    const res = await push(pushBody(notification(bought.token, type)));
    expect(res.status).toBe(200);
    expect(await auditOf(world, 'live', res.body.eventId)).toMatchObject({ eventType: `google.${name.split(' ')[0]}`, reconciledWithProvider: true });
    expect(activeKeys(await entitlementsOf(world, 'live', bought.customerId!))).toEqual(active ? ['pro'] : []);
  });

  it('SUBSCRIPTION_REVOKED takes access back at once even while Play still shows time left', async () => {
    const bought = await purchase();
    const res = await push(pushBody(notification(bought.token, 12)));
    expect(res.body.reason).toBe('active_to_revoked');
    expect(activeKeys(await entitlementsOf(world, 'live', bought.customerId!))).toEqual([]);
  });

  it('a voided purchase (refund) removes access, and a later re-read showing active does not give it back', async () => {
    const bought = await purchase();
    const voided = { version: '1.0', packageName: PLAY_PACKAGE, eventTimeMillis: String(nextEventTime()), voidedPurchaseNotification: { purchaseToken: bought.token, orderId: 'GPA.1', productType: 1, refundType: 1 } };
    const res = await push(pushBody(voided));
    expect(res.body).toMatchObject({ decision: 'applied', reason: 'active_to_refunded' });
    expect(activeKeys(await entitlementsOf(world, 'live', bought.customerId!))).toEqual([]);
    await push(pushBody(notification(bought.token, 2)));
    expect(activeKeys(await entitlementsOf(world, 'live', bought.customerId!))).toEqual([]);
  });

  it('records test notifications, one-time products, unknown tokens and other packages as no-ops', async () => {
    const test = await push(pushBody({ version: '1.0', packageName: PLAY_PACKAGE, eventTimeMillis: String(now()), testNotification: { version: '1.0' } }));
    expect(test.body).toMatchObject({ decision: 'no_op', reason: 'test_notification' });
    const oneTime = await push(pushBody({ version: '1.0', packageName: PLAY_PACKAGE, eventTimeMillis: String(now()), oneTimeProductNotification: { notificationType: 1, purchaseToken: 'x', sku: 'coins' } }));
    expect(oneTime.body).toMatchObject({ decision: 'no_op', reason: 'one_time_product_not_supported' });
    const unknown = await push(pushBody(notification(nextPurchaseToken(), 4)));
    expect(unknown.body).toMatchObject({ decision: 'no_op', reason: 'purchase_not_found' });
    const other = await push(pushBody({ ...notification(nextPurchaseToken(), 4), packageName: 'com.someone.else' }));
    expect(other.body).toMatchObject({ decision: 'no_op', reason: 'package_mismatch' });
  });
});

describe('delivery', () => {
  it('de-duplicates on the Pub/Sub message id', async () => {
    const bought = await purchase();
    const body = pushBody(notification(bought.token, 2));
    const first = await push(body);
    const audit = await auditOf(world, 'live', first.body.eventId);
    const again = await push(body);
    expect(again.status).toBe(200);
    expect(again.body.duplicate).toBe(true);
    expect(await auditOf(world, 'live', first.body.eventId)).toEqual(audit);
  });

  it('applies Play’s current state whatever the notification’s age, so a late RENEWED cannot resurrect an expired subscription', async () => {
    const bought = await purchase();
    world.google.purchases.set(bought.token, playPurchase({ state: 'SUBSCRIPTION_STATE_EXPIRED', expiryTime: now() - DAY }));
    await push(pushBody(notification(bought.token, 13)));
    const late = await push(pushBody(notification(bought.token, 2, now() - 7 * DAY)));
    expect(late.status).toBe(200);
    expect(activeKeys(await entitlementsOf(world, 'live', bought.customerId!))).toEqual([]);
  });

  it('an unreachable Play API records nothing and answers 500, so Pub/Sub retries; the retry applies', async () => {
    const token = nextPurchaseToken();
    world.google.purchases.set(token, playPurchase({}));
    world.google.failing.add(token);
    const body = pushBody(notification(token, 4));
    const failed = await push(body);
    expectError(failed, 500, 'internal_error', 'internal_error');
    const messageId = (body.message as { messageId: string }).messageId;
    expect(await auditOf(world, 'live', messageId)).toBeNull();
    world.google.failing.delete(token);
    const retried = await push(body);
    expect(retried.body).toMatchObject({ decision: 'applied', duplicate: false });
  });
});

describe('push token verification', () => {
  const rejected = async (token: string | null) => {
    const body = pushBody(notification(nextPurchaseToken(), 4));
    const before = await storedDocuments(world);
    const logged = jest.spyOn(railLogs, 'notificationUnverified');
    try {
      const res = await postGoogle(world, body, token);
      expectError(res, 401, 'authentication_error', 'invalid_api_key');
      expect(logged).toHaveBeenCalledWith(res.body.error.request_id, 'google', world.project.projectId, expect.stringMatching(/^push_token_invalid: /));
    } finally {
      logged.mockRestore();
    }
    expect(await storedDocuments(world)).toEqual(before);
    expect(await auditOf(world, 'live', (body.message as { messageId: string }).messageId)).toBeNull();
  };

  it('rejects a push without a token', async () => rejected(null));
  it('rejects a token for another audience', async () => rejected(await world.google.pushToken({ audience: 'https://elsewhere.example.com/push' })));
  it('rejects a token from another issuer', async () => rejected(await world.google.pushToken({ audience: world.pushAudience, issuer: 'https://evil.example.com' })));
  it('rejects an expired token', async () => rejected(await world.google.pushToken({ audience: world.pushAudience, expiresInSeconds: -3600 })));
  it('rejects a token of another service account', async () => rejected(await world.google.pushToken({ audience: world.pushAudience, email: 'someone@else.iam.gserviceaccount.com' })));
  it('rejects a token signed by a key Google does not publish', async () => {
    const stranger = await new GoogleFake().start();
    try {
      await rejected(await stranger.pushToken({ audience: world.pushAudience }));
    } finally {
      await stranger.stop();
    }
  });
});

describe('environments', () => {
  it('reconciles a license-tested purchase into sandbox; production sees nothing of it', async () => {
    const bought = await purchase({ testPurchase: true });
    expect(bought.res.body.env).toBe('sandbox');
    expect(bought.customerId).toMatch(/^cdcust_/);
    expect(activeKeys(await entitlementsOf(world, 'test', bought.customerId!))).toEqual(['pro']);
    expect(await customerOf(world, 'live', 'google_token', bought.token)).toBeNull();
    expect(await subscriptionOf(world, 'live', 'google', purchaseTokenHash(bought.token))).toBeNull();
    expect(await auditOf(world, 'live', bought.res.body.eventId)).toBeNull();
    expect(await auditOf(world, 'test', bought.res.body.eventId)).toMatchObject({ env: 'test', decision: 'applied' });
  });
});
