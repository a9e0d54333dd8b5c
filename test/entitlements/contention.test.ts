/**
 * Guarantee under contention on ONE customer (issue 11, item 6): 20 concurrent manual grants,
 * 20 revokes, 20 identifies and 20 rail decisions (signed Stripe webhooks) all aimed at the
 * same customer end in the state a serial order gives, and every answer is a 2xx or a clean
 * `429 rate_limited` with `Retry-After` in the error envelope — never a 500. The operations are
 * chosen to commute (distinct keys, devices and subscriptions), so every serial order gives the
 * same state, which is spelled out below from the answers alone. Also: a write the instance's
 * queue cannot take answers that 429 at once, and the store's contention errors map to it in
 * the one error mapping.
 */
import { randomUUID } from 'node:crypto';
import type supertest from 'supertest';
import type { GrantRecord, ProjectionDoc } from '../../functions/src/entitlements/model';
import { projectEntitlements } from '../../functions/src/entitlements/projection';
import { asApiError } from '../../functions/src/http/errors';
import type { CustomerRecord, IdentityIndexEntry } from '../../functions/src/customers/model';
import { linkHints } from '../../functions/src/identity/repository';
import { customerRef, identityRef } from '../../functions/src/customers/refs';
import { QueueFullError } from '../../functions/src/store/keyedQueue';
import { MAX_WAITING_PER_KEY, writeKeys, writeQueue } from '../../functions/src/store/writeQueue';
import { lockHeaders } from '../support/harness';
import { createRailsWorld, postStripe, type RailsWorld } from '../rails/support/railsWorld';
import { stripeEvent, stripeIds, stripeSubscription } from '../rails/support/stripeFake';
import { bearer, REASON } from './support';

const PER_KIND = 20;

let world: RailsWorld;
beforeAll(async () => {
  world = await createRailsWorld();
});
afterAll(async () => {
  await world.stop();
});

function expectCleanAnswer(res: supertest.Response, what: string): void {
  if (res.status >= 200 && res.status < 300) return;
  if (res.status !== 429) throw new Error(`${what}: expected 2xx or 429, got ${res.status} ${JSON.stringify(res.body)}`);
  expect(res.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' });
  expect(res.body.error.request_id).toBe(res.headers['x-request-id']);
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
}

it('20 concurrent grants, revokes, identifies and rail decisions on one customer end as a serial order would', async () => {
  const scope = world.scope('test');
  const secret = world.project.web.test.secret;
  const publishable = { Authorization: `Bearer ${world.project.ios.test.publishable}`, ...lockHeaders('ios') };
  const userId = `user_${randomUUID()}`;
  const stripeCustomer = stripeIds.customer();
  const { customerId } = await linkHints(scope, [{ kind: 'developer', id: userId }, { kind: 'stripe', id: stripeCustomer }], 'self_asserted', world.service.clock.now());
  const id = customerId!;

  const grantKeys = Array.from({ length: PER_KIND }, (_, i) => `granted_${i}`);
  const revokeKeys = Array.from({ length: PER_KIND }, (_, i) => `revoked_${i}`);
  const devices = Array.from({ length: PER_KIND }, (_, i) => `device_${i}_${randomUUID()}`);
  const subscriptions = Array.from({ length: PER_KIND }, () => stripeSubscription({ id: stripeIds.subscription(), customer: stripeCustomer }));
  for (const sub of subscriptions) world.stripe.subscriptions.set(sub.id as string, sub);
  // What the revokes take away, granted one by one before the race.
  const grant = (key: string) => world.service.request().post(`/v1/server/customers/${id}/grant`).set(bearer(secret)).send({ entitlementKey: key, duration: 'P30D', reason: REASON });
  for (const key of revokeKeys) expect((await grant(key)).status).toBe(200);

  const kinds = ['grant', 'revoke', 'identify', 'rail'] as const;
  // Interleaved, so every kind is in flight from the first moment.
  const operations = Array.from({ length: PER_KIND }, (_, i) => kinds.map((kind) => ({ kind, i }))).flat();
  const answers = await Promise.all(
    operations.map(async ({ kind, i }) => {
      let res: supertest.Response;
      if (kind === 'grant') res = await grant(grantKeys[i]);
      else if (kind === 'revoke') res = await world.service.request().post(`/v1/server/customers/${id}/revoke`).set(bearer(secret)).send({ entitlementKey: revokeKeys[i], reason: REASON });
      else if (kind === 'identify') res = await world.service.request().post('/v1/identify').set(publishable).send({ userId, anonymousId: devices[i] });
      else res = await postStripe(world, stripeEvent('customer.subscription.created', subscriptions[i]));
      return { kind, i, res };
    }),
  );
  for (const { kind, i, res } of answers) expectCleanAnswer(res, `${kind} #${i}`);
  const applied = (kind: (typeof kinds)[number]) => answers.filter((a) => a.kind === kind && a.res.status === 200).map((a) => a.i);

  // The serial outcome, from the answers: each applied grant added its key; each applied
  // revoke revoked its key (the rest stay active); each applied identify bound its device to the
  // customer; each applied rail decision added its subscription's `pro` grant.
  const grants = (await scope.collection('grants').where('customerId', '==', id).get()).docs.map((d) => d.data() as GrantRecord);
  const manual = grants.filter((g) => g.source.rail === 'manual');
  const activeManual = manual.filter((g) => g.revokedAt === null).map((g) => g.entitlementKey).sort();
  const revokedManual = manual.filter((g) => g.revokedAt !== null).map((g) => g.entitlementKey).sort();
  const appliedRevokes = applied('revoke').map((i) => revokeKeys[i]);
  expect(revokedManual).toEqual([...appliedRevokes].sort());
  expect(activeManual).toEqual([...applied('grant').map((i) => grantKeys[i]), ...revokeKeys.filter((k) => !appliedRevokes.includes(k))].sort());
  expect(manual).toHaveLength(applied('grant').length + revokeKeys.length);
  const railGrants = grants.filter((g) => g.source.rail === 'stripe');
  expect(railGrants.map((g) => g.source.subscriptionId).sort()).toEqual(applied('rail').map((i) => subscriptions[i].id as string).sort());
  expect(railGrants.every((g) => g.entitlementKey === 'pro' && g.revokedAt === null)).toBe(true);

  // The projection equals a recomputation from the grants.
  const projection = (await scope.doc('projections', id).get()).data() as ProjectionDoc;
  expect(projection.entitlements).toEqual(projectEntitlements(grants, world.service.clock.now()));

  // Identity: every applied identify answered this customer and bound its device to it; one customer record lists them all.
  for (const i of applied('identify')) {
    const answer = answers.find((a) => a.kind === 'identify' && a.i === i)!;
    expect(answer.res.body.serviceCustomerId).toBe(id);
    expect(((await identityRef(scope, 'anonymous', devices[i]).get()).data() as IdentityIndexEntry).customerId).toBe(id);
  }
  const record = (await customerRef(scope, id).get()).data() as CustomerRecord;
  const boundDevices = record.identities.filter((x) => x.kind === 'anonymous').map((x) => x.id).sort();
  expect(boundDevices).toEqual(applied('identify').map((i) => devices[i]).sort());
  expect(record.status).toBe('active');
}, 120_000); // 20 concurrent transactions on one customer retry under contention; a loaded CI machine needs more than the default

it('a write the instance cannot queue any more answers 429 rate_limited with Retry-After at once, and lands when sent again', async () => {
  const scope = world.scope('test');
  const { customerId } = await linkHints(scope, [{ kind: 'developer', id: `user_${randomUUID()}` }], 'self_asserted', world.service.clock.now());
  const key = writeKeys.customer(scope, customerId!);
  let release!: () => void;
  const holder = writeQueue.run([key], () => new Promise<void>((resolve) => (release = resolve)));
  const line = Array.from({ length: MAX_WAITING_PER_KEY }, () => writeQueue.run([key], async () => undefined));
  const grant = () =>
    world.service.request().post(`/v1/server/customers/${customerId}/grant`).set(bearer(world.project.web.test.secret)).send({ entitlementKey: 'busy_pro', duration: 'P30D', reason: REASON });
  const refused = await grant();
  expect(refused.status).toBe(429);
  expectCleanAnswer(refused, 'grant on a full queue');
  expect(refused.headers['x-service-sample-rate']).toBe('1');
  release();
  await Promise.all([holder, ...line]);
  expect((await grant()).status).toBe(200);
});

describe('store contention maps to 429 rate_limited with Retry-After (unit)', () => {
  it.each([
    ['ABORTED (lock timeout)', Object.assign(new Error('10 ABORTED: Transaction lock timeout'), { code: 10 })],
    ['RESOURCE_EXHAUSTED', Object.assign(new Error('8 RESOURCE_EXHAUSTED: Too much contention'), { code: 8 })],
    ['a transaction the emulator closed', Object.assign(new Error('3 INVALID_ARGUMENT: Transaction is invalid or closed.'), { code: 3 })],
    ['a full per-instance queue', new QueueFullError('p/test/customer/cdcust_x', 50)],
  ])('%s', (_name, err) => {
    const error = asApiError(err);
    expect(error.status).toBe(429);
    expect(error.code).toBe('rate_limited');
    expect(Number(error.headers?.['Retry-After'])).toBeGreaterThanOrEqual(1);
  });

  it('other store errors stay internal errors', () => {
    expect(asApiError(Object.assign(new Error('3 INVALID_ARGUMENT: Value for argument "documentPath" is not valid'), { code: 3 })).status).toBe(500);
    expect(asApiError(new Error('boom')).status).toBe(500);
  });
});
