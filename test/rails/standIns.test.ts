/**
 * Guarantees of the offline rail settings (TESSERA_APPLE_ONLINE_CHECKS, TESSERA_STRIPE_API_URL,
 * TESSERA_PLAY_API_URL, TESSERA_GOOGLE_PUSH_JWKS_URL): they are validated at start, defaults keep
 * deployed behaviour, any stand-in is reported loudly, and with them a service built like
 * `npm start` builds it (createDeps, no injected edges) takes an App Store transaction signed by
 * a test chain the project configured, a Stripe webhook whose subscription a local fake of
 * Stripe's API serves, and a Play notification verified and reconciled against local fakes.
 */
import { randomUUID } from 'node:crypto';
import { loadSettings } from '../../functions/src/config/settings';
import { createRailEdges, GOOGLE_PUSH_JWKS_URL, PLAY_STAND_IN_API_KEY, railStandIns } from '../../functions/src/rails/edges';
import { linkHints } from '../../functions/src/identity/repository';
import { lockHeaders } from '../support/harness';
import { transactionPayload } from './support/applePayloads';
import { nextPurchaseToken, playPurchase, pushBody } from './support/googleFake';
import { stripeEvent, stripeIds, stripeSubscription } from './support/stripeFake';
import { activeKeys, createRailsWorld, entitlementsOf, PLAY_PACKAGE, postGoogle, postStripe, type RailsWorld } from './support/railsWorld';

const SETTINGS = ['TESSERA_APPLE_ONLINE_CHECKS', 'TESSERA_STRIPE_API_URL', 'TESSERA_PLAY_API_URL', 'TESSERA_GOOGLE_PUSH_JWKS_URL', 'K_SERVICE', 'FUNCTIONS_EMULATOR'];

function withEnv<T>(values: Record<string, string>, read: () => T): T {
  const before = Object.fromEntries(SETTINGS.map((name) => [name, process.env[name]]));
  Object.assign(process.env, values);
  try {
    return read();
  } finally {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

describe('settings', () => {
  it('default to deployed behaviour: online Apple checks, Stripe, Play and Google keys at their real addresses', () => {
    const settings = withEnv({}, loadSettings);
    const edges = createRailEdges({}, settings);
    expect(edges.apple.onlineChecks).toBe(true);
    expect(edges.stripe.api).toEqual({});
    expect(edges.google.playRootUrl).toBeUndefined();
    expect(edges.google.pushJwksUrl).toBe(GOOGLE_PUSH_JWKS_URL);
    expect(railStandIns(edges)).toEqual([]);
  });

  it('turn into the Stripe client’s protocol, host and port, the Play root URL and the JWKS URL, each reported', async () => {
    const settings = withEnv(
      {
        TESSERA_APPLE_ONLINE_CHECKS: 'off',
        TESSERA_STRIPE_API_URL: 'http://127.0.0.1:12111',
        TESSERA_PLAY_API_URL: 'http://127.0.0.1:9999/play',
        TESSERA_GOOGLE_PUSH_JWKS_URL: 'http://127.0.0.1:9998/certs',
      },
      loadSettings,
    );
    const edges = createRailEdges({}, settings);
    expect(edges.apple.onlineChecks).toBe(false);
    expect(edges.stripe.api).toEqual({ protocol: 'http', host: '127.0.0.1', port: 12111 });
    expect(edges.google.playRootUrl).toBe('http://127.0.0.1:9999/play/');
    expect(edges.google.pushJwksUrl).toBe('http://127.0.0.1:9998/certs');
    await expect(edges.google.playAuth('{}')).resolves.toBe(PLAY_STAND_IN_API_KEY);
    expect(railStandIns(edges)).toHaveLength(4);
    expect(railStandIns(edges)[0]).toMatch(/App Store online checks are OFF/);
  });

  it('fail loudly at start on a value that is not a switch or an http(s) URL', () => {
    expect(() => withEnv({ TESSERA_APPLE_ONLINE_CHECKS: 'sometimes' }, loadSettings)).toThrow(/TESSERA_APPLE_ONLINE_CHECKS/);
    expect(() => withEnv({ TESSERA_STRIPE_API_URL: 'ftp://127.0.0.1' }, loadSettings)).toThrow(/TESSERA_STRIPE_API_URL/);
    expect(() => withEnv({ TESSERA_PLAY_API_URL: 'not a url' }, loadSettings)).toThrow(/TESSERA_PLAY_API_URL/);
  });
});

describe('on a deployed function', () => {
  const DEPLOYED = { K_SERVICE: 'api' };
  it.each([
    ['TESSERA_APPLE_ONLINE_CHECKS', 'off'],
    ['TESSERA_STRIPE_API_URL', 'http://127.0.0.1:12111'],
    ['TESSERA_PLAY_API_URL', 'http://127.0.0.1:9999/play'],
    ['TESSERA_GOOGLE_PUSH_JWKS_URL', 'http://127.0.0.1:9998/certs'],
  ])('%s=%s refuses to start (stand-ins are for the emulator and tests only)', (name, value) => {
    expect(() => withEnv({ ...DEPLOYED, [name]: value }, loadSettings)).toThrow(new RegExp(`Setting ${name} is for local development only`));
  });

  it('starts with the deployed defaults, and with Apple’s checks explicitly on', () => {
    expect(withEnv(DEPLOYED, loadSettings).appleOnlineChecks).toBe(true);
    expect(withEnv({ ...DEPLOYED, TESSERA_APPLE_ONLINE_CHECKS: 'on' }, loadSettings).appleOnlineChecks).toBe(true);
  });

  it('the Firebase emulator (K_SERVICE and FUNCTIONS_EMULATOR=true) still takes them', () => {
    const settings = withEnv({ ...DEPLOYED, FUNCTIONS_EMULATOR: 'true', TESSERA_APPLE_ONLINE_CHECKS: 'off', TESSERA_STRIPE_API_URL: 'http://127.0.0.1:12111' }, loadSettings);
    expect(settings.appleOnlineChecks).toBe(false);
    expect(settings.stripeApiUrl?.href).toBe('http://127.0.0.1:12111/');
  });
});

describe('a service on stand-ins, configured by settings alone', () => {
  let world: RailsWorld;
  beforeAll(async () => {
    world = await createRailsWorld({ edges: 'settings' });
  });
  afterAll(async () => {
    await world.stop();
  });

  it('takes an App Store transaction signed by the test chain whose root the project configured', async () => {
    const res = await world.service
      .request()
      .post('/v1/purchases/sync')
      .set('Authorization', `Bearer ${world.project.ios.test.publishable}`)
      .set(lockHeaders('ios'))
      .send({ rail: 'apple', signedTransactionInfo: world.apple.sign(transactionPayload({ productId: 'pro_monthly' })) });
    expect(res.status).toBe(200);
    expect(res.body.entitlements.map((e: { key: string }) => e.key)).toEqual(['pro']);
  });

  it('takes a Stripe webhook whose subscription the local fake of Stripe’s API serves', async () => {
    const { customerId } = await linkHints(world.scope('test'), [{ kind: 'developer', id: `user_${randomUUID()}` }], 'self_asserted', world.service.clock.now());
    const sub = stripeSubscription({ id: stripeIds.subscription(), customer: stripeIds.customer(), metadata: { serviceCustomerId: customerId! } });
    world.stripe.subscriptions.set(sub.id as string, sub);
    const readsBefore = world.stripe.reads;
    const res = await postStripe(world, stripeEvent('customer.subscription.created', sub, { created: Math.floor(world.service.clock.now() / 1000) }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ decision: 'applied' });
    expect(world.stripe.reads).toBe(readsBefore + 1);
    expect(activeKeys(await entitlementsOf(world, 'test', customerId!))).toEqual(['pro']);
  });

  it('takes a Play notification whose push token the local keys sign and whose purchase the local Play API serves', async () => {
    const token = nextPurchaseToken();
    world.google.purchases.set(token, playPurchase({}));
    const notification = { version: '1.0', packageName: PLAY_PACKAGE, eventTimeMillis: String(world.service.clock.now()), subscriptionNotification: { version: '1.0', notificationType: 4, purchaseToken: token, subscriptionId: 'pro_monthly' } };
    const res = await postGoogle(world, pushBody(notification), await world.google.pushToken({ audience: world.pushAudience }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ decision: 'applied' });
    const play = world.google.playRequests.at(-1)!;
    expect(play.path).toContain(`/applications/${PLAY_PACKAGE}/purchases/subscriptionsv2/tokens/`);
  });
});
