/**
 * Guarantees of POST /v1/server/customers/alias: secret key only; 1–1000 rows each processed
 * like identify; a bad row is reported and never blocks its siblings; the alias_batch shape
 * with its counts; request-level errors for empty, missing and oversized `links`.
 */
import { linkHints } from '../../functions/src/identity/repository';
import { EnvScope } from '../../functions/src/store/scope';
import { describeSecuredRoute } from '../support/securitySuite';
import { createTestService, expectError, lockHeaders, seedProject, type SeededProject, type TestService } from '../support/harness';

describeSecuredRoute({ method: 'POST', path: '/v1/server/customers/alias', key: 'secret', body: { links: [{ userId: 'sec-user', anonymousId: 'sec-device' }] } });

let service: TestService;
let project: SeededProject;
const alias = (body: unknown, key = project.web.test.secret) => service.request().post('/v1/server/customers/alias').set({ Authorization: `Bearer ${key}` }).send(body as object);

beforeAll(async () => {
  service = createTestService();
  project = await seedProject(service);
});
beforeEach(() => service.clock.advance(11_000));

it('links every good row, reports bad rows by index, and counts them', async () => {
  const existing = await service.request().post('/v1/identify').set({ Authorization: `Bearer ${project.web.test.publishable}`, ...lockHeaders('web') }).send({ userId: 'bulk-known', anonymousId: 'bulk-known-device' });
  // A device known only anonymously: a known user on it is a conflict for review (a device of
  // another developer user would move instead, as on identify: sharedDevice.test.ts).
  const other = await linkHints(new EnvScope(service.deps.db, project.projectId, 'test'), [{ kind: 'anonymous', id: 'bulk-other-device' }], 'self_asserted', service.clock.now());
  const res = await alias({
    links: [
      { userId: 'bulk-1', anonymousId: 'bulk-device-1', email: 'b1@example.com', traits: { plan: 'pro' } },
      { userId: 'bad user', anonymousId: 'bulk-device-2' },
      { userId: 'bulk-known', anonymousId: 'bulk-new-device' },
      'not a row',
      { userId: 'bulk-known', anonymousId: 'bulk-other-device' },
      { userId: 'bulk-3', anonymousId: 'bulk-device-3', traits: { too: 'x'.repeat(2000) } },
    ],
  });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    object: 'alias_batch',
    env: 'sandbox',
    total: 6,
    linked: 3,
    mergePending: 1,
    errors: 3,
    results: [
      { index: 0, serviceCustomerId: expect.stringMatching(/^cdcust_/), mergePending: false },
      { index: 1, error: { code: 'invalid_param_value', message: expect.stringContaining('links[1].userId') } },
      { index: 2, serviceCustomerId: existing.body.serviceCustomerId, mergePending: false },
      { index: 3, error: { code: 'invalid_param_value', message: expect.stringContaining('links[3]') } },
      { index: 4, serviceCustomerId: existing.body.serviceCustomerId, mergePending: true },
      { index: 5, error: { code: 'invalid_param_value', message: expect.stringContaining('links[5].traits.too') } },
    ],
  });
  expect(other.customerId).not.toBe(existing.body.serviceCustomerId);
  const read = await service.request().get('/v1/entitlements').query({ anonymousId: 'bulk-new-device' }).set({ Authorization: `Bearer ${project.web.test.secret}` });
  expect(read.body.serviceCustomerId).toBe(existing.body.serviceCustomerId);
});

it('is idempotent: the same rows again resolve to the same customers', async () => {
  const rows = { links: [{ userId: 'again-1', anonymousId: 'again-device-1' }, { userId: 'again-2', anonymousId: 'again-device-2' }] };
  const first = await alias(rows);
  const second = await alias(rows);
  expect(second.body.results).toEqual(first.body.results);
});

it('rejects missing or empty links with 400 missing_required_param and more than 1000 with 400 invalid_param_value', async () => {
  expectError(await alias({}), 400, 'invalid_request_error', 'missing_required_param');
  expectError(await alias({ links: [] }), 400, 'invalid_request_error', 'missing_required_param');
  expectError(await alias({ links: 'x' }), 400, 'invalid_request_error', 'invalid_param_value');
  const many = Array.from({ length: 1001 }, (_, i) => ({ userId: `u${i}`, anonymousId: `a${i}` }));
  expectError(await alias({ links: many }), 400, 'invalid_request_error', 'invalid_param_value');
});

it('writes into the key’s environment only', async () => {
  const res = await alias({ links: [{ userId: 'live-bulk', anonymousId: 'live-bulk-device' }] }, project.web.live.secret);
  expect(res.body.env).toBe('production');
  const testRead = await service.request().get('/v1/entitlements').query({ userId: 'live-bulk' }).set({ Authorization: `Bearer ${project.web.test.secret}` });
  expect(testRead.body.serviceCustomerId).toBe('');
});
