/**
 * Guarantees of GET /v1/server/customers/{id}/entitlements: secret key only; the public read's
 * list shape (deterministic order, Unix seconds, isActive decided at read time); unknown or
 * malformed customers are 400 invalid_customer (not an empty list); `private, no-store`; one
 * store round trip.
 */
import { DAY } from '../../functions/src/clock';
import { describeSecuredRoute } from '../support/securitySuite';
import { createTestService, expectError, seedProject, type SeededProject, type TestService } from '../support/harness';
import { bearer, newCustomer, REASON, seedRailGrant } from './support';

describeSecuredRoute({ method: 'GET', path: '/v1/server/customers/cdcust_securitysuite/entitlements', key: 'secret' });

let service: TestService;
let project: SeededProject;
beforeAll(async () => {
  service = createTestService({ settings: { exposeRoundTrips: true } });
  project = await seedProject(service);
});

const read = (customerId: string, key = project.android.test.secret) => service.request().get(`/v1/server/customers/${customerId}/entitlements`).set(bearer(key));

it('lists the customer entitlements in key order with the public shape', async () => {
  const customerId = await newCustomer(service, project);
  const now = service.clock.now();
  const rail = await seedRailGrant(service, project, customerId, 'zeta', { rail: 'google', validUntil: now + 2 * DAY });
  await service.request().post(`/v1/server/customers/${customerId}/grant`).set(bearer(project.web.test.secret)).send({ entitlementKey: 'alpha', duration: 'lifetime', reason: REASON });
  const res = await read(customerId);
  expect(res.status).toBe(200);
  expect(res.headers['cache-control']).toBe('private, no-store');
  expect(res.body).toEqual({
    object: 'list',
    data: [
      { object: 'entitlement', key: 'alpha', isActive: true, validUntil: null, source: { rail: 'manual', productId: 'manual', subscriptionId: expect.stringMatching(/^grt_/) }, updatedAt: Math.floor(now / 1000) },
      { object: 'entitlement', key: 'zeta', isActive: true, validUntil: Math.floor((now + 2 * DAY) / 1000), source: rail.source, updatedAt: Math.floor(now / 1000) },
    ],
    serviceCustomerId: customerId,
    env: 'sandbox',
  });
  // On a warm instance a server read is one store round trip: the key re-check, the customer and
  // the projection in one getAll.
  expect((await read(customerId)).headers['x-tessera-round-trips']).toBe('1');
  // isActive is decided at read time.
  service.clock.advance(3 * DAY);
  const later = await read(customerId);
  expect(later.body.data.map((e: { key: string; isActive: boolean }) => [e.key, e.isActive])).toEqual([
    ['alpha', true],
    ['zeta', false],
  ]);
});

it('a known customer without entitlements is an empty list', async () => {
  const customerId = await newCustomer(service, project);
  const res = await read(customerId);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ object: 'list', data: [], serviceCustomerId: customerId, env: 'sandbox' });
});

it('unknown customer, other environment, other project or missing prefix: 400 invalid_customer', async () => {
  expectError(await read('cdcust_nobody'), 400, 'invalid_request_error', 'invalid_customer');
  expectError(await read('12345'), 400, 'invalid_request_error', 'invalid_customer');
  const customerId = await newCustomer(service, project);
  expectError(await read(customerId, project.android.live.secret), 400, 'invalid_request_error', 'invalid_customer');
  const other = await seedProject(service);
  expectError(await read(customerId, other.android.test.secret), 400, 'invalid_request_error', 'invalid_customer');
});

it('serves the unprefixed path too', async () => {
  const customerId = await newCustomer(service, project);
  const res = await service.request().get(`/server/customers/${customerId}/entitlements`).set(bearer(project.android.test.secret));
  expect(res.status).toBe(200);
});
