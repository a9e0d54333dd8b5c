/**
 * Guarantees of GET /v1/reports/customers (row-level data, scope `reporting:identity`): active
 * customers with their own identifiers (never a Play purchase token) and only their active
 * entitlements, in id order, paged with an opaque cursor that visits each once; merged customers
 * are not listed; nothing of the other environment or another project.
 */
import { createKeys, revokeKey } from '../../functions/src/keys/lifecycle';
import { linkHints } from '../../functions/src/identity/repository';
import { listConflicts, mergeConflict } from '../../functions/src/identity/conflicts';
import { createApp } from '../../functions/src/projects/repository';
import { EnvScope } from '../../functions/src/store/scope';
import { createTestService, lockHeaders, seedProject, type SeededProject, type TestService } from '../support/harness';
import { DAY_MS, report } from './support';

let service: TestService;
let project: SeededProject;
let identityKey: string;
const ids: Record<string, string> = {};

async function keyFor(p: SeededProject, env: 'test' | 'live'): Promise<string> {
  const app = await createApp(service.deps.db, { projectId: p.projectId, platform: 'web', allowedOrigins: ['https://reports.example.com'] }, service.clock.now());
  return (await createKeys(service.deps.db, { appId: app.appId, env, scopes: ['reporting:identity'], acknowledgeRowLevelData: true }, service.clock.now())).secret.key;
}
const grant = async (customerId: string, entitlementKey: string, duration: string) => {
  const res = await service.request().post(`/v1/server/customers/${customerId}/grant`).set('Authorization', `Bearer ${project.ios.test.secret}`).send({ entitlementKey, duration, reason: 'seeded for the customers report test' });
  expect(res.status).toBe(200);
};

beforeAll(async () => {
  service = createTestService();
  project = await seedProject(service);
  identityKey = await keyFor(project, 'test');
  const scope = new EnvScope(service.deps.db, project.projectId, 'test');
  const link = async (hints: { kind: any; id: string }[]) => (await linkHints(scope, hints, 'self_asserted', service.clock.now())).customerId!;
  ids.alice = await link([{ kind: 'developer', id: 'alice' }, { kind: 'stripe', id: 'cus_alice' }, { kind: 'google_token', id: 'secret-purchase-token' }]);
  ids.bob = await link([{ kind: 'developer', id: 'bob' }]);
  ids.device = await link([{ kind: 'anonymous', id: 'device-7' }]);
  await grant(ids.alice, 'pro', 'lifetime');
  await grant(ids.bob, 'pro', 'P30D');
  await grant(ids.bob, 'cloud_sync', 'P30D');
  // Bob's device is merged into Bob: not listed afterwards.
  const identify = await service.request().post('/v1/identify').set({ Authorization: `Bearer ${project.ios.test.publishable}`, ...lockHeaders('ios') }).send({ userId: 'bob', anonymousId: 'device-7' });
  expect(identify.body).toMatchObject({ mergePending: true });
  const conflict = (await listConflicts(scope))[0];
  await mergeConflict(scope, conflict.conflictId, service.clock.now());
  // The other environment and another project.
  await linkHints(new EnvScope(service.deps.db, project.projectId, 'live'), [{ kind: 'developer', id: 'carol' }], 'self_asserted', service.clock.now());
  const other = await seedProject(service);
  await linkHints(new EnvScope(service.deps.db, other.projectId, 'test'), [{ kind: 'developer', id: 'dave' }], 'self_asserted', service.clock.now());
  // 31 days on: Bob's grants have run out.
  service.clock.advance(31 * DAY_MS);
});

it('lists active customers with their identities and active entitlements', async () => {
  const body = await report(service, identityKey, '/v1/reports/customers');
  expect(body).toMatchObject({ object: 'list', hasMore: false, nextCursor: null, env: 'sandbox' });
  const rows = Object.fromEntries(body.data.map((row: any) => [row.serviceCustomerId, row]));
  expect(Object.keys(rows).sort()).toEqual([ids.alice, ids.bob].sort());
  expect(rows[ids.alice].identities).toEqual([{ type: 'developer', id: 'alice' }, { type: 'stripe', id: 'cus_alice' }]);
  expect(rows[ids.alice].entitlements.map((e: any) => [e.key, e.isActive, e.source.rail])).toEqual([['pro', true, 'manual']]);
  expect(rows[ids.bob].identities).toEqual(expect.arrayContaining([{ type: 'developer', id: 'bob' }, { type: 'anonymous', id: 'device-7' }]));
  expect(rows[ids.bob].entitlements).toEqual([]);
  expect(JSON.stringify(body)).not.toContain('secret-purchase-token');
});

it('pages in id order with a cursor, each customer once', async () => {
  const first = await report(service, identityKey, '/v1/reports/customers?limit=1');
  expect(first.hasMore).toBe(true);
  const second = await report(service, identityKey, `/v1/reports/customers?limit=1&cursor=${first.nextCursor}`);
  expect(second).toMatchObject({ hasMore: false, nextCursor: null });
  expect([first.data[0].serviceCustomerId, second.data[0].serviceCustomerId]).toEqual([ids.alice, ids.bob].sort());
});

it('never lists the other environment or another project', async () => {
  const live = await report(service, await keyFor(project, 'live'), '/v1/reports/customers');
  expect(live.data.map((row: any) => row.identities)).toEqual([[{ type: 'developer', id: 'carol' }]]);
  expect(live.env).toBe('production');
});

it('refuses a cursor of another list', async () => {
  const res = await service.request().get(`/v1/reports/customers?cursor=${Buffer.from(JSON.stringify({ c: 'x' })).toString('base64url')}`).set('Authorization', `Bearer ${identityKey}`);
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('invalid_param_value');
});

it('pages through many customers, each once in id order, skipping those not active, whatever the page size', async () => {
  const other = await seedProject(service);
  const scope = new EnvScope(service.deps.db, other.projectId, 'test');
  const link = async (hints: { kind: any; id: string }[]) => (await linkHints(scope, hints, 'self_asserted', service.clock.now())).customerId!;
  const listed: string[] = [];
  for (let i = 0; i < 5; i += 1) listed.push(await link([{ kind: 'developer', id: `user-${i}` }]));
  // Two device customers, each merged into a user's: listed no more, wherever they fall in id order.
  const devices = [await link([{ kind: 'anonymous', id: 'device-a' }]), await link([{ kind: 'anonymous', id: 'device-b' }])];
  await link([{ kind: 'developer', id: 'user-1' }, { kind: 'anonymous', id: 'device-a' }]);
  await link([{ kind: 'developer', id: 'user-4' }, { kind: 'anonymous', id: 'device-b' }]);
  for (const conflict of await listConflicts(scope)) await mergeConflict(scope, conflict.conflictId, service.clock.now());
  const stillActive = await Promise.all(devices.map(async (id) => (await scope.get(scope.doc('customers', id))).data()?.status));
  expect(stillActive).toEqual(['merged', 'merged']);
  const key = await keyFor(other, 'test');
  for (const limit of [1, 2, 3, 100]) {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: any = await report(service, key, `/v1/reports/customers?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.data.length).toBeLessThanOrEqual(limit);
      seen.push(...page.data.map((row: any) => row.serviceCustomerId));
      cursor = page.nextCursor;
      expect(page.hasMore).toBe(cursor !== null);
      pages += 1;
      service.clock.advance(1000); // the reports bucket refills
    } while (cursor);
    expect(seen).toEqual([...listed].sort());
    expect(pages).toBe(Math.max(1, Math.ceil(listed.length / limit)));
  }
});

it('refuses a revoked row-level key on its very next request, though the page query runs beside the key check', async () => {
  const key = await keyFor(project, 'test');
  await report(service, key, '/v1/reports/customers'); // warm the key cache
  await revokeKey(service.deps.db, key, service.clock.now());
  const res = await service.request().get('/v1/reports/customers').set('Authorization', `Bearer ${key}`);
  expect(res.status).toBe(401);
  expect(res.body.error.code).toBe('key_revoked');
  expect(JSON.stringify(res.body)).not.toContain(ids.alice);
});
