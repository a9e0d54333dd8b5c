/**
 * Guarantees of GET /v1/reports/subscribers against a seeded workload with known answers:
 * manual grants (lifetime and timed), a revoke, a renewal that extends, expiries by time passing
 * (no write), a merge of two subscribed customers (counted once after it), a Stripe subscription
 * (rail `stripe`); "now" per key and rail, per-key totals, the day and hour series; and that no
 * other environment's or project's subscribers are ever counted.
 */
import { randomUUID } from 'node:crypto';
import { listConflicts, mergeConflict } from '../../functions/src/identity/conflicts';
import { linkHints } from '../../functions/src/identity/repository';
import type { Env } from '../../functions/src/store/env';
import { EnvScope } from '../../functions/src/store/scope';
import { lockHeaders, seedProject, type SeededProject } from '../support/harness';
import { stripeEvent, stripeIds, stripeSubscription } from '../rails/support/stripeFake';
import { createRailsWorld, postStripe, type RailsWorld } from '../rails/support/railsWorld';
import { DAY_MS, HOUR_MS, report, utcDay } from './support';

const REASON = 'seeded reports workload for the test suite';
let world: RailsWorld;
let t0: number;
const clock = () => world.service.clock;
const day = (k: number) => utcDay(t0) + k * DAY_MS;

async function customer(project: SeededProject, env: Env, hints: { kind: 'developer' | 'anonymous'; id: string }[]): Promise<string> {
  const scope = new EnvScope(world.service.deps.db, project.projectId, env);
  const { customerId } = await linkHints(scope, hints, 'self_asserted', clock().now());
  return customerId!;
}
async function grant(project: SeededProject, env: Env, customerId: string, entitlementKey: string, duration: string): Promise<void> {
  const res = await world.service
    .request()
    .post(`/v1/server/customers/${customerId}/grant`)
    .set('Authorization', `Bearer ${project.ios[env].secret}`)
    .send({ entitlementKey, duration, reason: REASON });
  expect(res.status).toBe(200);
}
async function revoke(project: SeededProject, customerId: string, entitlementKey: string): Promise<void> {
  const res = await world.service.request().post(`/v1/server/customers/${customerId}/revoke`).set('Authorization', `Bearer ${project.ios.test.secret}`).send({ entitlementKey, reason: REASON });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  world = await createRailsWorld();
  // 10:30 UTC, 40 days ago: the workload then runs 35 days forward on the manual clock.
  t0 = utcDay(Date.now()) - 40 * DAY_MS + 10.5 * HOUR_MS;
  clock().set(t0);
  const p = world.project;

  // Day 0: six customers hold `pro` (manual), A also `cloud_sync`; S subscribes through Stripe.
  const dev = () => ({ kind: 'developer' as const, id: `user_${randomUUID()}` });
  const [a, b, c, d] = [await customer(p, 'test', [dev()]), await customer(p, 'test', [dev()]), await customer(p, 'test', [dev()]), await customer(p, 'test', [dev()])];
  const eUser = `user_${randomUUID()}`;
  const fDevice = `device_${randomUUID()}`;
  const e = await customer(p, 'test', [{ kind: 'developer', id: eUser }]);
  const f = await customer(p, 'test', [{ kind: 'anonymous', id: fDevice }]);
  await grant(p, 'test', a, 'pro', 'P30D');
  await grant(p, 'test', a, 'cloud_sync', 'P30D');
  await grant(p, 'test', b, 'pro', 'lifetime');
  await grant(p, 'test', c, 'pro', 'P30D');
  await grant(p, 'test', d, 'pro', 'P30D');
  await grant(p, 'test', e, 'pro', 'P90D');
  await grant(p, 'test', f, 'pro', 'P90D');
  const s = await customer(p, 'test', [dev()]);
  const sub = stripeSubscription({ id: stripeIds.subscription(), customer: stripeIds.customer(), metadata: { serviceCustomerId: s }, periodStart: Math.floor(t0 / 1000), periodEnd: Math.floor((t0 + 45 * DAY_MS) / 1000) });
  world.stripe.subscriptions.set(sub.id as string, sub);
  const created = Math.floor(t0 / 1000);
  expect((await postStripe(world, stripeEvent('customer.subscription.created', sub, { created }), { timestamp: created })).body.decision).toBe('applied');

  // The other environment and another project: never counted here.
  await grant(p, 'live', await customer(p, 'live', [dev()]), 'pro', 'lifetime');
  const other = await seedProject(world.service);
  await grant(other, 'test', await customer(other, 'test', [dev()]), 'pro', 'lifetime');

  // Day 2: C's grant is revoked.
  clock().set(t0 + 2 * DAY_MS);
  await revoke(p, c, 'pro');
  // Day 5: E's user signs in on F's device; the operator merges F into E (both held `pro`).
  clock().set(t0 + 5 * DAY_MS);
  const identify = await world.service.request().post('/v1/identify').set({ Authorization: `Bearer ${p.ios.test.publishable}`, ...lockHeaders('ios') }).send({ userId: eUser, anonymousId: fDevice });
  expect(identify.body).toMatchObject({ mergePending: true });
  const conflict = (await listConflicts(world.scope('test'))).find((x) => x.otherCustomerIds.includes(f))!;
  expect((await mergeConflict(world.scope('test'), conflict.conflictId, clock().now())).canonicalCustomerId).toBe(e);
  // Day 10: D's grant is extended by another 30 days (to day 40).
  clock().set(t0 + 10 * DAY_MS);
  await grant(p, 'test', d, 'pro', 'P30D');
  // Day 35: A's grants ran out on day 30 (no write happened then).
  clock().set(t0 + 35 * DAY_MS);
}, 60_000);

afterAll(async () => {
  await world.stop();
});

it('counts active customers now per entitlement key and rail, and per key', async () => {
  const body = await report(world.service, world.project.ios.test.secret, '/v1/reports/subscribers');
  expect(body.object).toBe('list');
  expect(body.env).toBe('sandbox');
  expect(body.data).toEqual([
    { entitlementKey: 'pro', rail: 'manual', active: 3 },
    { entitlementKey: 'pro', rail: 'stripe', active: 1 },
  ]);
  expect(body.totals).toEqual([{ entitlementKey: 'pro', active: 4 }]);
});

it('gives a daily series of customers active at each day’s end', async () => {
  const body = await report(world.service, world.project.ios.test.secret, `/v1/reports/subscribers?from=${day(0)}&to=${clock().now()}`);
  const series = (key: string, rail: string) => body.series.filter((r: any) => r.entitlementKey === key && r.rail === rail).map((r: any) => [Math.round((r.t - day(0)) / DAY_MS), r.active]);
  const expected = (values: (k: number) => number) => Array.from({ length: 36 }, (_, k) => [k, values(k)]);
  expect(series('pro', 'manual')).toEqual(expected((k) => (k < 2 ? 6 : k < 5 ? 5 : k < 30 ? 4 : 3)));
  expect(series('pro', 'stripe')).toEqual(expected(() => 1));
  expect(series('cloud_sync', 'manual')).toEqual(expected((k) => (k < 30 ? 1 : 0)));
  expect(body.granularity).toBe('day');
});

it('gives an hourly series: a revoke at 10:30 counts from the end of the 10:00 hour', async () => {
  const from = day(2) + 9 * HOUR_MS;
  const body = await report(world.service, world.project.ios.test.secret, `/v1/reports/subscribers?granularity=hour&from=${from}&to=${from + 3 * HOUR_MS}`);
  const manualPro = body.series.filter((r: any) => r.entitlementKey === 'pro' && r.rail === 'manual').map((r: any) => [(r.t - from) / HOUR_MS, r.active]);
  expect(manualPro).toEqual([[0, 6], [1, 5], [2, 5], [3, 5]]);
  // `to` in the past: "now" is still today's figure.
  expect(body.data).toContainEqual({ entitlementKey: 'pro', rail: 'manual', active: 3 });
});

it('never counts the other environment or another project', async () => {
  const live = await report(world.service, world.project.android.live.secret, '/v1/reports/subscribers');
  expect(live.env).toBe('production');
  expect(live.data).toEqual([{ entitlementKey: 'pro', rail: 'manual', active: 1 }]);
  const test = await report(world.service, world.project.web.test.secret, '/v1/reports/subscribers');
  expect(test.data.reduce((n: number, r: any) => n + r.active, 0)).toBe(4);
});
