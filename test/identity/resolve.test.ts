/**
 * Guarantees of POST /v1/resolve: the trust-tier table row by row (status, user,
 * entitlements only at tier 3, recommendedAction incl. one_tap vs silent_refresh), the 90-day
 * trusted-device window at its boundary, anonymousId echoed, 400 with no identity, a verified
 * identity alone sufficing, and no way to reach a user's entitlements by asserting a user id.
 */
import { DAY } from '../../functions/src/clock';
import { EnvScope } from '../../functions/src/store/scope';
import { describeSecuredRoute } from '../support/securitySuite';
import { createTestService, expectError, lockHeaders, seedProject, type SeededProject, type TestService } from '../support/harness';
import { seedGrants } from './support/grants';
import { configureProvider, startProvider, type TestProvider } from './support/tokens';

describeSecuredRoute({ method: 'POST', path: '/v1/resolve', key: 'any', body: { anonymousId: 'sec-device' } });

let service: TestService;
let project: SeededProject;
let provider: TestProvider;
const pub = () => ({ Authorization: `Bearer ${project.android.test.publishable}`, ...lockHeaders('android') });
const resolve = (body: unknown, headers: Record<string, string> = pub()) => service.request().post('/v1/resolve').set(headers).send(body as object);
const identify = (body: object) => service.request().post('/v1/identify').set(pub()).send(body);

beforeAll(async () => {
  service = createTestService();
  project = await seedProject(service);
  provider = await startProvider(() => service.clock.now());
  await configureProvider(service.deps.db, project.projectId, { jwksUri: provider.jwksUri });
});
afterAll(() => provider.close());

describe('tiers', () => {
  it('tier 0: an unknown device is anonymous → onboard', async () => {
    const res = await resolve({ anonymousId: 'never-seen' });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.body).toEqual({ object: 'resolve_result', status: 'anonymous', trustTier: 0, user: null, entitlements: null, recommendedAction: 'onboard', anonymousId: 'never-seen' });
  });

  it('tier 1: a device bound to a known user, never verified here → welcome_back, no entitlements', async () => {
    await identify({ userId: 'tier1-user', anonymousId: 'tier1-device', email: 'one@example.com' });
    const res = await resolve({ anonymousId: 'tier1-device', passkeyAvailable: true });
    expect(res.body).toEqual({
      object: 'resolve_result',
      status: 'recognized',
      trustTier: 1,
      user: { id: 'tier1-user', email: 'one@example.com' },
      entitlements: null,
      recommendedAction: 'welcome_back',
      anonymousId: 'tier1-device',
    });
  });

  it('tier 3: a verified idToken for userId now → authenticated, active entitlements, enter', async () => {
    const linked = await identify({ userId: 'tier3-user', anonymousId: 'tier3-device' });
    const now = service.clock.now();
    await seedGrants(new EnvScope(service.deps.db, project.projectId, 'test'), linked.body.serviceCustomerId, [
      { entitlementKey: 'pro', validUntil: now + 10 * DAY },
      { entitlementKey: 'expired_one', validUntil: now - 1000 },
    ], now);
    const idToken = await provider.sign({ sub: 'tier3-user', email: 'three@example.com', given_name: 'Tess' });
    const res = await resolve({ anonymousId: 'tier3-device', userId: 'tier3-user', idToken });
    expect(res.body).toMatchObject({
      object: 'resolve_result',
      status: 'authenticated',
      trustTier: 3,
      user: { id: 'tier3-user', email: 'three@example.com', firstName: 'Tess' },
      recommendedAction: 'enter',
      anonymousId: 'tier3-device',
    });
    expect(res.body.entitlements.map((e: { key: string; isActive: boolean }) => [e.key, e.isActive])).toEqual([['pro', true]]);
  });

  it('tier 2: the device reached tier 3 within 90 days → one_tap with a passkey, else silent_refresh; tier 1 after day 90', async () => {
    await identify({ userId: 'tier2-user', anonymousId: 'tier2-device' });
    const idToken = await provider.sign({ sub: 'tier2-user' });
    expect((await resolve({ anonymousId: 'tier2-device', userId: 'tier2-user', idToken })).body.trustTier).toBe(3);

    const withPasskey = await resolve({ anonymousId: 'tier2-device', passkeyAvailable: true });
    expect(withPasskey.body).toEqual({ object: 'resolve_result', status: 'recognized', trustTier: 2, user: { id: 'tier2-user' }, entitlements: null, recommendedAction: 'one_tap', anonymousId: 'tier2-device' });
    expect((await resolve({ anonymousId: 'tier2-device' })).body).toMatchObject({ trustTier: 2, recommendedAction: 'silent_refresh', entitlements: null });
    expect((await resolve({ anonymousId: 'tier2-device', passkeyAvailable: false })).body.recommendedAction).toBe('silent_refresh');

    service.clock.advance(90 * DAY); // exactly 90 days later: still inside the window
    expect((await resolve({ anonymousId: 'tier2-device' })).body.trustTier).toBe(2);
    service.clock.advance(1); // one millisecond past it
    expect((await resolve({ anonymousId: 'tier2-device', passkeyAvailable: true })).body).toMatchObject({ trustTier: 1, recommendedAction: 'welcome_back' });
  });

  it('a verification on another device does not lift this device to tier 2', async () => {
    await identify({ userId: 'two-devices', anonymousId: 'device-a' });
    await identify({ userId: 'two-devices', anonymousId: 'device-b' });
    const idToken = await provider.sign({ sub: 'two-devices' });
    await resolve({ anonymousId: 'device-a', userId: 'two-devices', idToken });
    expect((await resolve({ anonymousId: 'device-a' })).body.trustTier).toBe(2);
    expect((await resolve({ anonymousId: 'device-b' })).body.trustTier).toBe(1);
  });
});

describe('fail closed', () => {
  it('an asserted userId without a token never elevates and never returns entitlements', async () => {
    await identify({ userId: 'victim', anonymousId: 'victim-device' });
    const res = await resolve({ anonymousId: 'attacker-device', userId: 'victim' });
    expect(res.body).toMatchObject({ trustTier: 0, status: 'anonymous', user: null, entitlements: null });
  });

  it('invalid, expired, forged, wrong-issuer, wrong-audience and wrong-subject tokens fall through to the device binding', async () => {
    await identify({ userId: 'fall-user', anonymousId: 'fall-device' });
    const now = service.clock.now();
    const tokens = [
      'not-a-jwt',
      await provider.sign({ sub: 'fall-user' }, { issuedAt: now - 7200_000, expiresAt: now - 3600_000 }),
      await provider.sign({ sub: 'fall-user' }, { key: provider.forgeryKey }),
      await provider.sign({ sub: 'fall-user', iss: 'https://evil.example' }),
      await provider.sign({ sub: 'fall-user', aud: 'another-app' }),
      await provider.sign({ sub: 'someone-else' }),
    ];
    for (const idToken of tokens) {
      const res = await resolve({ anonymousId: 'fall-device', userId: 'fall-user', idToken });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ trustTier: 1, status: 'recognized', entitlements: null, recommendedAction: 'welcome_back', anonymousId: 'fall-device' });
    }
    // and without a device binding to fall back on, the answer is tier 0, not an error
    const bare = await resolve({ userId: 'fall-user', idToken: tokens[2] });
    expect(bare.body).toMatchObject({ trustTier: 0, status: 'anonymous', user: null, entitlements: null, anonymousId: null });
  });

  it('no identity at all → 400 invalid_param_value', async () => {
    expectError(await resolve({}), 400, 'invalid_request_error', 'invalid_param_value');
    expectError(await resolve({ userId: 'x' }), 400, 'invalid_request_error', 'invalid_param_value');
    expectError(await resolve({ idToken: 'x' }), 400, 'invalid_request_error', 'invalid_param_value');
    expectError(await resolve({ anonymousId: 'ok', passkeyAvailable: 'yes' }), 400, 'invalid_request_error', 'invalid_param_value');
  });

  it('server to server: a verified identity alone suffices with a secret key', async () => {
    await identify({ userId: 'server-user', anonymousId: 'server-device' });
    const idToken = await provider.sign({ sub: 'server-user' });
    const res = await resolve({ userId: 'server-user', idToken }, { Authorization: `Bearer ${project.android.test.secret}` });
    expect(res.body).toMatchObject({ status: 'authenticated', trustTier: 3, user: { id: 'server-user' }, entitlements: [], recommendedAction: 'enter', anonymousId: null });
  });

  it('a token is never accepted from another project’s provider configuration', async () => {
    const other = await seedProject(service);
    const idToken = await provider.sign({ sub: 'cross-user' });
    const res = await resolve({ anonymousId: 'cross-device', userId: 'cross-user', idToken }, { Authorization: `Bearer ${other.android.test.publishable}`, ...lockHeaders('android') });
    expect(res.body).toMatchObject({ trustTier: 0, entitlements: null });
  });
});
