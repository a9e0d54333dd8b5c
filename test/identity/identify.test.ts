/**
 * Guarantees of POST /v1/identify (and /v1/identity/alias): every validation rule with its
 * code, the alias_result shape, idempotent re-identify, mergePending without silent merges,
 * one customer under 20 concurrent calls, partition isolation (env and project), traits merge
 * rules, the journal of verified vs self-asserted links, and the per-userId velocity cap.
 */
import type { CustomerRecord, IdentityIndexEntry } from '../../functions/src/customers/model';
import { linkHints } from '../../functions/src/identity/repository';
import { customerRef, identityRef } from '../../functions/src/customers/refs';
import { EnvScope } from '../../functions/src/store/scope';
import { describeSecuredRoute } from '../support/securitySuite';
import { createTestService, expectError, lockHeaders, seedProject, type SeededProject, type TestService } from '../support/harness';
import { configureProvider, startProvider, type TestProvider } from './support/tokens';

describeSecuredRoute({ method: 'POST', path: '/v1/identify', key: 'any', body: { userId: 'sec-user', anonymousId: 'sec-anon' } });

let service: TestService;
let project: SeededProject;
let provider: TestProvider;
const pub = () => ({ Authorization: `Bearer ${project.ios.test.publishable}`, ...lockHeaders('ios') });
const identify = (body: unknown, headers = pub()) => service.request().post('/v1/identify').set(headers).send(body as object);
const scope = (env: 'test' | 'live' = 'test', projectId = project.projectId) => new EnvScope(service.deps.db, projectId, env);
const customer = async (id: string) => (await customerRef(scope(), id).get()).data() as CustomerRecord;

beforeAll(async () => {
  service = createTestService();
  project = await seedProject(service);
  provider = await startProvider(() => service.clock.now());
  await configureProvider(service.deps.db, project.projectId, { jwksUri: provider.jwksUri });
});
afterAll(() => provider.close());
// The alias bucket (10/s, burst 100) is per project: give each test a refilled bucket.
beforeEach(() => service.clock.advance(61_000));

describe('validation', () => {
  const cases: [string, unknown][] = [
    ['missing userId', { anonymousId: 'a1' }],
    ['empty userId', { userId: '', anonymousId: 'a1' }],
    ['userId over 256 chars', { userId: 'u'.repeat(257), anonymousId: 'a1' }],
    ['userId with a space', { userId: 'bad user', anonymousId: 'a1' }],
    ['userId with a slash', { userId: 'a/b', anonymousId: 'a1' }],
    ['non-string userId', { userId: 42, anonymousId: 'a1' }],
    ['missing anonymousId', { userId: 'u1' }],
    ['anonymousId over 128 chars', { userId: 'u1', anonymousId: 'a'.repeat(129) }],
    ['anonymousId with a dot', { userId: 'u1', anonymousId: 'a.b' }],
    ['anonymousId with @', { userId: 'u1', anonymousId: 'a@b' }],
    ['uppercase appAccountToken', { userId: 'u1', anonymousId: 'a1', appAccountToken: 'E5A1A0F2-3C4B-4D5E-8F70-8192A3B4C5D6' }],
    ['non-UUID appAccountToken', { userId: 'u1', anonymousId: 'a1', appAccountToken: 'not-a-uuid' }],
    ['traits as an array', { userId: 'u1', anonymousId: 'a1', traits: ['x'] }],
    ['33 trait keys', { userId: 'u1', anonymousId: 'a1', traits: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, i])) }],
    ['a trait string over 1,024 chars', { userId: 'u1', anonymousId: 'a1', traits: { bio: 'x'.repeat(1025) } }],
    ['a non-string email', { userId: 'u1', anonymousId: 'a1', email: 7 }],
    ['a body that is not an object', [1, 2]],
  ];
  it.each(cases)('rejects %s with 400 invalid_param_value', async (_name, body) => {
    expectError(await identify(body), 400, 'invalid_request_error', 'invalid_param_value');
  });

  it('accepts the edges of every rule', async () => {
    const res = await identify({
      userId: `${'u'.repeat(250)}_-.:@`,
      anonymousId: `${'a'.repeat(126)}_-`,
      appAccountToken: 'e5a1a0f2-3c4b-4d5e-8f70-8192a3b4c5d6',
      traits: { ...Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`k${i}`, i])), bio: 'x'.repeat(1024) },
    });
    expect(res.status).toBe(200);
  });

  it('rejects a declared environment other than the key’s: 403 env_mismatch', async () => {
    expectError(await identify({ userId: 'u-env', anonymousId: 'a-env', environment: 'production' }), 403, 'permission_error', 'env_mismatch');
  });
});

describe('linking', () => {
  it('answers alias_result with both links and a cdcust_ id, on the canonical and legacy paths', async () => {
    const res = await identify({ userId: 'user-1', anonymousId: 'anon-1' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'alias_result',
      serviceCustomerId: expect.stringMatching(/^cdcust_[A-Za-z0-9]{16,}$/),
      linked: [
        { type: 'developer', id: 'user-1' },
        { type: 'anonymous', id: 'anon-1' },
      ],
      mergePending: false,
      env: 'sandbox',
    });
    const legacy = await service.request().post('/identity/alias').set(pub()).send({ userId: 'user-1', anonymousId: 'anon-1b' });
    expect(legacy.status).toBe(200);
    expect(legacy.body.serviceCustomerId).toBe(res.body.serviceCustomerId);
  });

  it('re-identifying a linked pair is an idempotent 200', async () => {
    const first = await identify({ userId: 'user-2', anonymousId: 'anon-2' });
    const again = await identify({ userId: 'user-2', anonymousId: 'anon-2' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await customer(first.body.serviceCustomerId)).identities).toHaveLength(2);
  });

  it('identifiers of two customers: mergePending, developer customer canonical, nothing merged', async () => {
    const userCustomer = (await identify({ userId: 'user-3', anonymousId: 'anon-3a' })).body.serviceCustomerId;
    // A device known only anonymously (say it bought before any login). A device of another
    // developer user moves instead (sharedDevice.test.ts).
    const otherCustomer = (await linkHints(scope(), [{ kind: 'anonymous', id: 'anon-3b' }], 'self_asserted', service.clock.now())).customerId;
    const res = await identify({ userId: 'user-3', anonymousId: 'anon-3b' });
    expect(res.status).toBe(200);
    expect(res.body.mergePending).toBe(true);
    expect(res.body.serviceCustomerId).toBe(userCustomer);
    const device = (await identityRef(scope(), 'anonymous', 'anon-3b').get()).data() as IdentityIndexEntry;
    expect(device.customerId).toBe(otherCustomer);
    const conflicts = await scope().collection('identityConflicts').where('canonicalCustomerId', '==', userCustomer).get();
    expect(conflicts.docs.map((d) => d.data())).toEqual([expect.objectContaining({ status: 'open', otherCustomerIds: [otherCustomer] })]);
  });

  it('20 parallel identify calls for one new userId produce exactly one customer', async () => {
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => identify({ userId: 'user-race', anonymousId: `anon-race-${i}` })));
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    const ids = new Set(responses.map((r) => r.body.serviceCustomerId));
    expect(ids.size).toBe(1);
    expect(responses.every((r) => r.body.mergePending === false)).toBe(true);
    const customers = await scope().collection('customers').where('identities', 'array-contains', { kind: 'developer', id: 'user-race' }).get();
    expect(customers.size).toBe(1);
  });

  it('binds an appAccountToken to the customer', async () => {
    const res = await identify({ userId: 'user-aat', anonymousId: 'anon-aat', appAccountToken: '0b7c9d2e-1f3a-4b5c-9d6e-7f8091a2b3c4' });
    const entry = (await identityRef(scope(), 'apple_aat', '0b7c9d2e-1f3a-4b5c-9d6e-7f8091a2b3c4').get()).data() as IdentityIndexEntry;
    expect(entry.customerId).toBe(res.body.serviceCustomerId);
  });
});

describe('partitions', () => {
  it('a test-key identify is invisible to live keys and to another project', async () => {
    const testCustomer = (await identify({ userId: 'user-part', anonymousId: 'anon-part' })).body.serviceCustomerId;
    const live = await identify({ userId: 'user-part', anonymousId: 'anon-part' }, { Authorization: `Bearer ${project.ios.live.publishable}`, ...lockHeaders('ios') });
    expect(live.body.env).toBe('production');
    expect(live.body.serviceCustomerId).not.toBe(testCustomer);
    expect((await identityRef(scope('live'), 'developer', 'user-part').get()).data()).toMatchObject({ customerId: live.body.serviceCustomerId });

    const other = await seedProject(service);
    const read = await service.request().get('/v1/entitlements').query({ customerId: testCustomer }).set({ Authorization: `Bearer ${other.ios.test.secret}` });
    expect(read.body).toMatchObject({ data: [], serviceCustomerId: '' });
    const otherIdentify = await identify({ userId: 'user-part', anonymousId: 'anon-part' }, { Authorization: `Bearer ${other.ios.test.publishable}`, ...lockHeaders('ios') });
    expect(otherIdentify.body.serviceCustomerId).not.toBe(testCustomer);
    const liveRead = await service.request().get('/v1/entitlements').query({ customerId: testCustomer }).set({ Authorization: `Bearer ${project.ios.live.secret}` });
    expect(liveRead.body).toMatchObject({ data: [], serviceCustomerId: '' });
  });
});

describe('traits and email', () => {
  it('merges traits additively per key, keeps primitives and drops nested values', async () => {
    const first = await identify({ userId: 'user-traits', anonymousId: 'anon-t', traits: { plan: 'free', age: 30, beta: true, nick: null, nested: { a: 1 }, list: [1, 2] } });
    await identify({ userId: 'user-traits', anonymousId: 'anon-t', traits: { plan: 'pro', city: 'Oslo' } });
    const record = await customer(first.body.serviceCustomerId);
    expect(record.traits).toEqual({ plan: 'pro', age: 30, beta: true, nick: null, city: 'Oslo' });
  });

  it('stores a self-asserted email and journals the links as self-asserted', async () => {
    const res = await identify({ userId: 'user-email', anonymousId: 'anon-email', email: 'me@example.com' });
    expect((await customer(res.body.serviceCustomerId)).email).toBe('me@example.com');
    const entry = (await identityRef(scope(), 'developer', 'user-email').get()).data() as IdentityIndexEntry;
    expect(entry.assurance).toBe('self_asserted');
  });

  it('a verified idToken journals the identity as verified and its email claim overrides email', async () => {
    const idToken = await provider.sign({ sub: 'user-verified', email: 'claimed@example.com' });
    const res = await identify({ userId: 'user-verified', anonymousId: 'anon-verified', email: 'typed@example.com', idToken });
    expect(res.status).toBe(200);
    expect((await customer(res.body.serviceCustomerId)).email).toBe('claimed@example.com');
    for (const [kind, id] of [['developer', 'user-verified'], ['anonymous', 'anon-verified']] as const) {
      expect(((await identityRef(scope(), kind, id).get()).data() as IdentityIndexEntry).assurance).toBe('verified');
    }
  });

  it('an invalid idToken is 401 identity_token_invalid and links nothing', async () => {
    const idToken = await provider.sign({ sub: 'someone-else' });
    expectError(await identify({ userId: 'user-bad-token', anonymousId: 'anon-bad-token', idToken }), 401, 'authentication_error', 'identity_token_invalid');
    expect((await identityRef(scope(), 'developer', 'user-bad-token').get()).exists).toBe(false);
  });
});

describe('velocity cap', () => {
  it('the 31st identify for one userId within 60 s is 429 rate_limited; others are unaffected; it clears after the window', async () => {
    for (let i = 0; i < 30; i += 1) {
      const res = await identify({ userId: 'user-fast', anonymousId: `anon-fast-${i % 3}` });
      expect(res.status).toBe(200);
      service.clock.advance(100);
    }
    const capped = await identify({ userId: 'user-fast', anonymousId: 'anon-fast-0' });
    expectError(capped, 429, 'rate_limit_error', 'rate_limited');
    expect(Number(capped.headers['retry-after'])).toBeGreaterThan(0);
    expect((await identify({ userId: 'user-slow', anonymousId: 'anon-slow' })).status).toBe(200);
    service.clock.advance(60_000);
    expect((await identify({ userId: 'user-fast', anonymousId: 'anon-fast-0' })).status).toBe(200);
  });

  it('the cap holds across instances: the shared record on the user’s identity document decides', async () => {
    const other = createTestService({ clock: service.clock });
    const headers = pub();
    for (let i = 0; i < 30; i += 1) {
      const via = i % 2 === 0 ? service : other;
      expect((await via.request().post('/v1/identify').set(headers).send({ userId: 'user-multi', anonymousId: 'anon-multi' })).status).toBe(200);
    }
    // Neither instance has seen 30 calls; the 31st is refused by the shared record.
    expectError(await other.request().post('/v1/identify').set(headers).send({ userId: 'user-multi', anonymousId: 'anon-multi' }), 429, 'rate_limit_error', 'rate_limited');
  });
});
