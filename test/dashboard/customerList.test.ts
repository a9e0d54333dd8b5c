/**
 * The dashboard's customer browsing (issue 22 §5), through its API: a list with paging, newest
 * first; filters by status, created range, entitlement and rail; prefix search on email and
 * user id; combinations one index cannot answer refused with a 400; a customer's audit trail and
 * events newest first, a page at a time. Only a signed-in operator, only the path's environment.
 */
import { grantManually } from '../../functions/src/entitlements/manualGrants';
import { EVENTS } from '../../functions/src/events/model';
import { linkMigratedUser } from '../../functions/src/identity/repository';
import { EnvScope } from '../../functions/src/store/scope';
import { createTestService, expectError, seedProject, type SeededProject, type TestService } from '../support/harness';
import { enableLocalLogin } from '../support/localSignIn';

let service: TestService;
let project: SeededProject;
let session: Record<string, string>;
let scope: EnvScope;
const ids: Record<string, string> = {};
const actor = { requestId: 'test', keyId: 'test' };

beforeAll(async () => {
  service = createTestService();
  project = await seedProject(service);
  scope = new EnvScope(service.deps.db, project.projectId, 'test');
  const loginToken = enableLocalLogin(service.deps.operators);
  const res = await service.request().post('/v1/dashboard-api/session/local').send({ loginToken });
  session = { Authorization: `Bearer ${res.body.data.sessionToken}` };
  // Six customers, one a minute: ann (pro, manual), bob (stripe id), bea, carl (pro), dan, erin.
  for (const [name, extra] of [['ann', []], ['bob', [{ kind: 'stripe', id: 'cus_bob' }]], ['bea', []], ['carl', []], ['dan', []], ['erin', []]] as const) {
    service.clock.advance(60_000);
    const link = await linkMigratedUser(scope, [{ kind: 'developer', id: `user_${name}` }, ...extra], { email: `${name}@example.com`, traits: {} }, service.clock.now());
    ids[name] = link.customerId!;
  }
  for (const name of ['ann', 'carl']) await grantManually(scope, { customerId: ids[name], entitlementKey: 'pro', duration: 'P30D', reason: 'test' }, actor, service.clock.now());
  await grantManually(scope, { customerId: ids.dan, entitlementKey: 'team', duration: 'P30D', reason: 'test' }, actor, service.clock.now());
});

const list = (query: string, env = 'test') => service.request().get(`/v1/dashboard-api/projects/${project.projectId}/${env}/customer-list?${query}`).set(session);
const idsOf = (res: { body: { data: { data: { customerId: string }[] } } }) => res.body.data.data.map((r) => Object.entries(ids).find(([, id]) => id === r.customerId)?.[0]);

it('lists customers newest first, a page at a time, each with its user ids, rails and active entitlements', async () => {
  const first = await list('limit=4');
  expect(first.status).toBe(200);
  expect(idsOf(first)).toEqual(['erin', 'dan', 'carl', 'bea']);
  expect(first.body.data.hasMore).toBe(true);
  const second = await list(`limit=4&cursor=${first.body.data.nextCursor}`);
  expect(idsOf(second)).toEqual(['bob', 'ann']);
  expect(second.body.data).toMatchObject({ hasMore: false, nextCursor: null });
  expect(second.body.data.data[0]).toMatchObject({ email: 'bob@example.com', status: 'active', userIds: ['user_bob'], rails: ['stripe'], entitlements: [] });
  expect(second.body.data.data[1].entitlements).toEqual([{ key: 'pro', rail: 'manual', validUntil: expect.any(Number) }]);
});

it('filters by created range and status, entitlement and rail, and searches email and user id by prefix', async () => {
  const created = (await list('')).body.data.data.map((r: { customerId: string; createdAt: number }) => [r.customerId, r.createdAt]);
  const at = Object.fromEntries(created);
  expect(idsOf(await list(`createdFrom=${at[ids.bea]}&createdTo=${at[ids.dan]}`))).toEqual(['dan', 'carl', 'bea']);
  expect(idsOf(await list('status=active&limit=2'))).toEqual(['erin', 'dan']);
  expect(idsOf(await list('status=erased'))).toEqual([]);
  // Firestore orders document ids by their bytes (upper case before lower), not by locale.
  expect(idsOf(await list('entitlement=pro'))).toEqual(['ann', 'carl'].sort((a, b) => (ids[a] < ids[b] ? -1 : 1)));
  expect(idsOf(await list('entitlement=pro&rail=stripe'))).toEqual([]);
  expect(idsOf(await list('rail=manual')).sort()).toEqual(['ann', 'carl', 'dan']);
  expect(idsOf(await list('emailPrefix=b'))).toEqual(['bea', 'bob']);
  expect(idsOf(await list('emailPrefix=be&status=active'))).toEqual(['bea']);
  const byUser = await list('userIdPrefix=user_b&limit=1');
  expect(idsOf(byUser)).toEqual(['bea']);
  expect(idsOf(await list(`userIdPrefix=user_b&limit=1&cursor=${byUser.body.data.nextCursor}`))).toEqual(['bob']);
});

it('refuses what one index cannot answer, and bad values, with a 400 in the envelope', async () => {
  expectError(await list('emailPrefix=a&createdFrom=1'), 400, 'invalid_request_error', 'invalid_param_value');
  expectError(await list('entitlement=pro&status=active'), 400, 'invalid_request_error', 'invalid_param_value');
  expectError(await list('userIdPrefix=u&rail=stripe'), 400, 'invalid_request_error', 'invalid_param_value');
  expectError(await list('status=gone'), 400, 'invalid_request_error', 'invalid_param_value');
  expectError(await list('limit=0'), 400, 'invalid_request_error', 'invalid_param_value');
  const page = await list('limit=1');
  expectError(await list(`emailPrefix=a&cursor=${page.body.data.nextCursor}`), 400, 'invalid_request_error', 'invalid_param_value');
});

it('shows nothing to a caller without an operator session, and only the path’s environment', async () => {
  const anonymous = await service.request().get(`/v1/dashboard-api/projects/${project.projectId}/test/customer-list`);
  expect(anonymous.status).toBe(401);
  expect(JSON.stringify(anonymous.body)).not.toContain('example.com');
  expect((await list('', 'live')).body.data.data).toEqual([]);
});

it('pages a customer’s audit trail and events newest first', async () => {
  const customerId = ids.erin;
  for (let i = 0; i < 30; i += 1) {
    service.clock.advance(1_000);
    await grantManually(scope, { customerId, entitlementKey: `k${i}`, duration: 'P30D', reason: `grant ${i}` }, actor, service.clock.now());
  }
  const base = service.clock.now();
  await Promise.all(
    Array.from({ length: 30 }, (_, i) =>
      scope.doc(EVENTS, `evt_erin_${i}`).set({ eventId: `evt_erin_${i}`, name: `screen_${i}`, level: null, timestamp: base - i * 1_000, appId: project.web.appId, platform: 'web', serviceCustomerId: customerId }),
    ),
  );
  const path = `/v1/dashboard-api/projects/${project.projectId}/test/customers/${customerId}`;
  const detail = (await service.request().get(path).set(session)).body.data;
  expect(detail.audit).toHaveLength(25);
  expect(detail.audit[0].details.entitlementKey).toBe('k29');
  expect(detail.recentEvents.map((e: { name: string }) => e.name).slice(0, 3)).toEqual(['screen_0', 'screen_1', 'screen_2']);
  const moreAudit = (await service.request().get(`${path}/audit?cursor=${detail.auditNextCursor}`).set(session)).body.data;
  expect(moreAudit.data.map((a: { details: { entitlementKey: string } }) => a.details.entitlementKey)).toEqual(['k4', 'k3', 'k2', 'k1', 'k0']);
  expect(moreAudit.nextCursor).toBeNull();
  const moreEvents = (await service.request().get(`${path}/events?cursor=${detail.eventsNextCursor}`).set(session)).body.data;
  expect(moreEvents.data.map((e: { name: string }) => e.name)).toEqual(['screen_25', 'screen_26', 'screen_27', 'screen_28', 'screen_29']);
  expectError(await service.request().get(`${path}/events?cursor=bm9wZQ`).set(session), 400, 'invalid_request_error', 'invalid_param_value');
});
