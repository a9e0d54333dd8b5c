/**
 * Guarantees of the per-project require-verified-identity policy (issue 11, item 5): off by
 * default (a known userId can be identified from a new device without a token); switched on
 * through `tessera identity-provider policy`, an identify from a publishable key without a valid
 * idToken cannot link a new device to a user with a verified identity (401
 * identity_token_invalid, nothing written), and a publishable key's entitlement read by such a
 * userId answers as for an unknown customer, while reads by the cdcust_ id, tokens, already
 * linked devices, self-asserted users and secret keys are unaffected. The policy costs the
 * entitlement read and identify no extra store round trip on a warm instance.
 */
import { DAY } from '../../functions/src/clock';
import type { CustomerRecord } from '../../functions/src/customers/model';
import { customerRef, identityRef } from '../../functions/src/customers/refs';
import { EnvScope } from '../../functions/src/store/scope';
import { operatorCommands } from '../support/operatorCommands';
import { createTestService, expectError, lockHeaders, seedProject, type SeededProject, type TestService } from '../support/harness';
import { seedGrants } from './support/grants';
import { event, postEvents, storedEvent } from '../events/support';
import { AUDIENCE, ISSUER, configureProvider, startProvider, type TestProvider } from './support/tokens';

let service: TestService;
let provider: TestProvider;

const { tessera, tesseraFails } = operatorCommands(() => service);

/** A project with a provider, and a paying user who identified with a verified token. */
async function world() {
  const project = await seedProject(service);
  await configureProvider(service.deps.db, project.projectId, { jwksUri: provider.jwksUri });
  const pub = { Authorization: `Bearer ${project.ios.test.publishable}`, ...lockHeaders('ios') };
  const secret = { Authorization: `Bearer ${project.ios.test.secret}` };
  const identify = (body: object, headers: Record<string, string> = pub) => service.request().post('/v1/identify').set(headers).send(body);
  const entitlements = (query: Record<string, string>, headers: Record<string, string> = pub) => service.request().get('/v1/entitlements').query(query).set(headers);
  const scope = new EnvScope(service.deps.db, project.projectId, 'test');
  const verified = await identify({ userId: 'vera', anonymousId: 'vera-phone', idToken: await provider.sign({ sub: 'vera' }) });
  expect(verified.status).toBe(200);
  const customerId = verified.body.serviceCustomerId as string;
  const now = service.clock.now();
  await seedGrants(scope, customerId, [{ entitlementKey: 'pro', validUntil: now + 30 * DAY }], now);
  const policy = async (state: 'on' | 'off') => {
    const out = await tessera('identity-provider policy', { project: project.projectId, 'require-verified-identity': state });
    service.clock.advance(61_000); // instances apply a change within 60 s
    return out;
  };
  return { project, pub, secret, identify, entitlements, scope, customerId, policy };
}

beforeAll(async () => {
  service = createTestService({ settings: { exposeRoundTrips: true } });
  provider = await startProvider(() => service.clock.now());
});
afterAll(() => provider.close());
beforeEach(() => service.clock.advance(61_000));

it('is off by default: a verified user can be identified from a new device without a token, and read by userId', async () => {
  const w = await world();
  const res = await w.identify({ userId: 'vera', anonymousId: 'vera-laptop' });
  expect(res.body).toMatchObject({ serviceCustomerId: w.customerId, mergePending: false });
  expect((await w.entitlements({ userId: 'vera' })).body).toMatchObject({ data: [expect.objectContaining({ key: 'pro' })], serviceCustomerId: w.customerId });
});

it('when on: no new device for a verified user without a valid token; known devices, tokens and secret keys still work', async () => {
  const w = await world();
  expect(await w.policy('on')).toEqual({ projectId: w.project.projectId, requireVerifiedIdentity: true, updatedAt: expect.any(Number) });

  const refused = await w.identify({ userId: 'vera', anonymousId: 'stranger-device', traits: { plan: 'free' } });
  expectError(refused, 401, 'authentication_error', 'identity_token_invalid');
  expect((await identityRef(w.scope, 'anonymous', 'stranger-device').get()).exists).toBe(false);
  const record = (await customerRef(w.scope, w.customerId).get()).data() as CustomerRecord;
  expect(record.identities.map((i) => i.id)).toEqual(['vera', 'vera-phone']);
  expect(record.traits).toEqual({});

  // A device of another user cannot be moved to the verified user without a token either.
  await w.identify({ userId: 'someone', anonymousId: 'someone-device' });
  expectError(await w.identify({ userId: 'vera', anonymousId: 'someone-device' }), 401, 'authentication_error', 'identity_token_invalid');
  // An invalid token is refused as always.
  expectError(await w.identify({ userId: 'vera', anonymousId: 'stranger-device', idToken: await provider.sign({ sub: 'not-vera' }) }), 401, 'authentication_error', 'identity_token_invalid');

  // Re-identifying an already linked device needs no token.
  expect((await w.identify({ userId: 'vera', anonymousId: 'vera-phone' })).body).toMatchObject({ serviceCustomerId: w.customerId });
  // A valid token links the new device.
  const withToken = await w.identify({ userId: 'vera', anonymousId: 'stranger-device', idToken: await provider.sign({ sub: 'vera' }) });
  expect(withToken.body).toMatchObject({ serviceCustomerId: w.customerId, mergePending: false });
  // A self-asserted user is not affected.
  expect((await w.identify({ userId: 'sam', anonymousId: 'sam-phone' })).status).toBe(200);
  expect((await w.identify({ userId: 'sam', anonymousId: 'sam-tablet' })).status).toBe(200);
});

it('when on: nothing binds a new device to a verified user without a token, whatever the key or path (issue 19 §1)', async () => {
  const w = await world();
  await w.policy('on');
  // Identify with the secret key.
  expectError(await w.identify({ userId: 'vera', anonymousId: 'vera-server-device' }, w.secret), 401, 'authentication_error', 'identity_token_invalid');
  // A bulk alias row: refused alone, its siblings linked.
  const bulk = await service.request().post('/v1/server/customers/alias').set(w.secret).send({ links: [{ userId: 'vera', anonymousId: 'vera-bulk-device' }, { userId: 'sam-bulk', anonymousId: 'sam-bulk-device' }, { userId: 'vera', anonymousId: 'vera-phone' }] });
  expect(bulk.status).toBe(200);
  expect(bulk.body.results).toEqual([
    { index: 0, error: { code: 'identity_token_invalid', message: expect.stringContaining('requires a valid idToken') } },
    { index: 1, serviceCustomerId: expect.stringMatching(/^cdcust_/), mergePending: false },
    { index: 2, serviceCustomerId: w.customerId, mergePending: false },
  ]);
  // Events: the attacker's device is not linked to the verified user; its events go to the device alone.
  await postEvents(service, w.project, { events: [event({ eventId: 'policy-ev-1', developerUserId: 'vera', anonymousId: 'attacker-device' })] });
  await service.tasks.drain();
  const attributed = (await storedEvent(service, w.project.projectId, 'policy-ev-1'))?.serviceCustomerId as string;
  expect(attributed).toMatch(/^cdcust_/);
  expect(attributed).not.toBe(w.customerId);
  for (const id of ['vera-server-device', 'vera-bulk-device', 'attacker-device']) {
    const entry = await identityRef(w.scope, 'anonymous', id).get();
    expect(entry.exists ? entry.data()!.customerId : null).not.toBe(w.customerId);
  }
  expect(((await customerRef(w.scope, w.customerId).get()).data() as CustomerRecord).identities.map((i) => i.id)).toEqual(['vera', 'vera-phone']);
  // So the attacker's device reads nothing of vera's and cannot erase her (forget by anonymousId needs no proof).
  expect((await w.entitlements({ anonymousId: 'attacker-device' })).body).toMatchObject({ data: [] });
  const forget = await service.request().post('/v1/identity/forget').set(w.pub).send({ anonymousId: 'attacker-device' });
  expect(forget.status).toBeLessThan(500);
  expect(((await customerRef(w.scope, w.customerId).get()).data() as CustomerRecord).status).toBe('active');
});

it('when on: a publishable read by a verified userId answers as for an unknown customer; by cdcust_ id and with a secret key it does not', async () => {
  const w = await world();
  await w.identify({ userId: 'sam', anonymousId: 'sam-phone' });
  await w.policy('on');
  expect((await w.entitlements({ userId: 'vera' })).body).toEqual({ object: 'list', data: [], serviceCustomerId: '', env: 'sandbox' });
  expect((await w.entitlements({ customerId: w.customerId })).body).toMatchObject({ data: [expect.objectContaining({ key: 'pro' })], serviceCustomerId: w.customerId });
  expect((await w.entitlements({ userId: 'vera' }, w.secret)).body).toMatchObject({ data: [expect.objectContaining({ key: 'pro' })], serviceCustomerId: w.customerId });
  expect((await w.entitlements({ userId: 'sam' })).body.serviceCustomerId).toMatch(/^cdcust_/);

  // Switched off again: back to the default.
  expect(await w.policy('off')).toMatchObject({ requireVerifiedIdentity: false });
  expect((await w.entitlements({ userId: 'vera' })).body.serviceCustomerId).toBe(w.customerId);
  expect((await w.identify({ userId: 'vera', anonymousId: 'vera-after' })).status).toBe(200);
});

it('costs no extra round trip: the settings read rides along with the request’s first read', async () => {
  const w = await world();
  await w.policy('on');
  const trips = (res: { headers: Record<string, string> }) => Number(res.headers['x-tessera-round-trips']);
  // Warm the key only; the policy is not cached yet on this instance.
  await w.entitlements({ customerId: w.customerId });
  const first = await w.entitlements({ userId: 'sam-unknown' });
  expect(first.status).toBe(200);
  const cached = await w.entitlements({ userId: 'sam-unknown' });
  expect(trips(first)).toBe(trips(cached));
  expect(trips(first)).toBeLessThanOrEqual(2);

  service.clock.advance(61_000);
  // Warm the publishable key and the project's alias bucket, not the policy (a bulk alias of
  // invalid rows only never consults it).
  await w.entitlements({ customerId: w.customerId });
  expect((await service.request().post('/v1/server/customers/alias').set(w.secret).send({ links: [{ userId: '' }] })).body).toMatchObject({ errors: 1 });
  await w.identify({ userId: 'newbie', anonymousId: 'newbie-phone' });
  service.clock.advance(61_000);
  await w.entitlements({ customerId: w.customerId });
  expect((await service.request().post('/v1/server/customers/alias').set(w.secret).send({ links: [{ userId: '' }] })).body).toMatchObject({ errors: 1 });
  const identifyFirst = await w.identify({ userId: 'newbie', anonymousId: 'newbie-phone' });
  const identifyCached = await w.identify({ userId: 'newbie', anonymousId: 'newbie-phone' });
  expect(identifyFirst.status).toBe(200);
  expect(trips(identifyFirst)).toBe(trips(identifyCached));
});

describe('tessera identity-provider policy', () => {
  it('needs a provider to switch on, validates its value, and survives a provider change', async () => {
    const bare = await seedProject(service);
    expect((await tesseraFails('identity-provider policy', { project: bare.projectId, 'require-verified-identity': 'on' })).code).toBe('conflict');
    expect(await tessera('identity-provider policy', { project: bare.projectId, 'require-verified-identity': 'off' })).toMatchObject({ requireVerifiedIdentity: false });
    expect((await tesseraFails('identity-provider policy', { project: bare.projectId, 'require-verified-identity': 'yes' })).code).toBe('invalid_argument');
    expect((await tesseraFails('identity-provider policy', { project: 'proj_missing', 'require-verified-identity': 'off' })).code).toBe('not_found');

    const w = await world();
    await w.policy('on');
    const replaced = await tessera('identity-provider set', { project: w.project.projectId, issuer: ISSUER, audience: AUDIENCE, 'jwks-uri': provider.jwksUri });
    expect(replaced).toMatchObject({ requireVerifiedIdentity: true });
    service.clock.advance(61_000);
    expectError(await w.identify({ userId: 'vera', anonymousId: 'after-replace' }), 401, 'authentication_error', 'identity_token_invalid');
  });
});
