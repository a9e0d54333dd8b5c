/**
 * Guarantees of GET /v1/entitlements: exactly one hint resolved inside the key's project and
 * environment, the spec's error codes, unknown customers as an empty 200, deterministic order,
 * isActive decided at read time, private no-store caching, and a read by userId in at most two
 * store round trips on a warm instance.
 */
import { DAY } from '../../functions/src/clock';
import { EnvScope } from '../../functions/src/store/scope';
import { describeSecuredRoute } from '../support/securitySuite';
import { createTestService, expectError, lockHeaders, seedProject, type SeededProject, type TestService } from '../support/harness';
import { seedGrants } from './support/grants';

describeSecuredRoute({ method: 'GET', path: '/v1/entitlements?userId=nobody', key: 'any' });

let service: TestService;
let project: SeededProject;
let customerId: string;
const pub = () => ({ Authorization: `Bearer ${project.web.test.publishable}`, ...lockHeaders('web') });
const read = (query: Record<string, string | string[]>, headers: Record<string, string> = pub()) => service.request().get('/v1/entitlements').query(query).set(headers);

beforeAll(async () => {
  service = createTestService({ settings: { exposeRoundTrips: true } });
  project = await seedProject(service);
  const res = await service.request().post('/v1/identify').set(pub()).send({ userId: 'reader', anonymousId: 'reader-device' });
  customerId = res.body.serviceCustomerId;
  const now = service.clock.now();
  await seedGrants(new EnvScope(service.deps.db, project.projectId, 'test'), customerId, [
    { entitlementKey: 'pro', validUntil: now + 30 * DAY, source: { rail: 'stripe', productId: 'prod_pro', subscriptionId: 'sub_1' }, updatedAt: now - 5000 },
    { entitlementKey: 'addon', validUntil: now + 1000, source: { rail: 'apple', productId: 'com.x.addon', subscriptionId: 'otx_1' } },
    { entitlementKey: 'lifetime_pass', validUntil: null },
  ], now);
});

describe('hints and errors', () => {
  it('no hint → 400 missing_customer', async () => {
    expectError(await read({}), 400, 'invalid_request_error', 'missing_customer');
    expectError(await read({ userId: '' }), 400, 'invalid_request_error', 'missing_customer');
  });

  it('a customerId without cdcust_ → 400 invalid_customer', async () => {
    expectError(await read({ customerId: 'cus_123' }), 400, 'invalid_request_error', 'invalid_customer');
    expectError(await read({ customerId: 'cdcust_a/b' }), 400, 'invalid_request_error', 'invalid_customer');
  });

  it('more than one hint, or a malformed one → 400 invalid_param_value', async () => {
    expectError(await read({ userId: 'reader', anonymousId: 'reader-device' }), 400, 'invalid_request_error', 'invalid_param_value');
    expectError(await read({ userId: ['a', 'b'] }), 400, 'invalid_request_error', 'invalid_param_value');
    expectError(await read({ anonymousId: 'has space' }), 400, 'invalid_request_error', 'invalid_param_value');
  });

  it('an unknown customer is 200 with empty data and serviceCustomerId ""', async () => {
    for (const query of [{ userId: 'stranger' }, { anonymousId: 'stranger-device' }, { customerId: 'cdcust_doesnotexist' }] as Record<string, string>[]) {
      const res = await read(query);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ object: 'list', data: [], serviceCustomerId: '', env: 'sandbox' });
    }
  });
});

describe('reads', () => {
  it('returns the projection in key order, with seconds, by every hint, private and no-store', async () => {
    const now = service.clock.now();
    const expected = [
      { object: 'entitlement', key: 'addon', isActive: true, validUntil: Math.floor((now + 1000) / 1000), source: { rail: 'apple', productId: 'com.x.addon', subscriptionId: 'otx_1' }, updatedAt: Math.floor(now / 1000) },
      { object: 'entitlement', key: 'lifetime_pass', isActive: true, validUntil: null, source: { rail: 'manual', productId: 'manual', subscriptionId: 'sub_2' }, updatedAt: Math.floor(now / 1000) },
      { object: 'entitlement', key: 'pro', isActive: true, validUntil: Math.floor((now + 30 * DAY) / 1000), source: { rail: 'stripe', productId: 'prod_pro', subscriptionId: 'sub_1' }, updatedAt: Math.floor((now - 5000) / 1000) },
    ];
    for (const query of [{ userId: 'reader' }, { anonymousId: 'reader-device' }, { customerId }] as Record<string, string>[]) {
      const res = await read(query);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('private, no-store');
      expect(res.body).toEqual({ object: 'list', data: expected, serviceCustomerId: customerId, env: 'sandbox' });
    }
  });

  it('decides isActive at read time against validUntil', async () => {
    service.clock.advance(2000);
    const res = await read({ userId: 'reader' });
    expect(res.body.data.find((e: { key: string }) => e.key === 'addon').isActive).toBe(false);
    expect(res.body.data.find((e: { key: string }) => e.key === 'pro').isActive).toBe(true);
  });

  it('a secret key reads any customer of its project; the other environment sees nothing', async () => {
    expect((await read({ customerId }, { Authorization: `Bearer ${project.android.test.secret}` })).body.data).toHaveLength(3);
    expect((await read({ customerId }, { Authorization: `Bearer ${project.android.live.secret}` })).body).toMatchObject({ data: [], serviceCustomerId: '', env: 'production' });
    expect((await read({ userId: 'reader' }, { Authorization: `Bearer ${project.web.live.publishable}`, ...lockHeaders('web') })).body).toMatchObject({ data: [], serviceCustomerId: '' });
  });

  it('a known customer without entitlements gets its id and an empty list', async () => {
    const res = await service.request().post('/v1/identify').set(pub()).send({ userId: 'empty-user', anonymousId: 'empty-device' });
    expect((await read({ userId: 'empty-user' })).body).toEqual({ object: 'list', data: [], serviceCustomerId: res.body.serviceCustomerId, env: 'sandbox' });
  });

  it('reads by userId in at most 2 store round trips on a warm instance', async () => {
    await read({ userId: 'reader' }); // warm: key cached, rate-limit lease held
    const res = await read({ userId: 'reader' });
    expect(res.status).toBe(200);
    expect(Number(res.headers['x-tessera-round-trips'])).toBeLessThanOrEqual(2);
    const byCustomer = await read({ customerId });
    expect(Number(byCustomer.headers['x-tessera-round-trips'])).toBe(1);
  });
});
