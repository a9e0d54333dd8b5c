/**
 * Guarantees of the authentication pipeline (Authentication › Verification order): both key
 * headers, missing/malformed/unknown/wrong-type/revoked/expired/archived keys, the environment
 * taken from the key alone, and data never readable across projects or environments.
 */
import { archiveProject } from '../../functions/src/keys/archive';
import { archiveApp } from '../../functions/src/keys/archive';
import { revokeKey, rotateKey } from '../../functions/src/keys/lifecycle';
import { HOUR } from '../../functions/src/clock';
import { createTestService, expectError, lockHeaders, seedProject, type SeededProject, type TestService } from '../support/harness';
import { describeSecuredRoute } from '../support/securitySuite';

let service: TestService;
let project: SeededProject;

beforeAll(async () => {
  service = createTestService();
  project = await seedProject(service);
});

const config = (headers: Record<string, string>) => service.request().get('/v1/config').set(headers);

describe('presenting a key', () => {
  it('accepts Authorization: Bearer and Service-Api-Key alike', async () => {
    const viaBearer = await config({ Authorization: `Bearer ${project.ios.test.publishable}`, ...lockHeaders('ios') });
    const viaHeader = await config({ 'Service-Api-Key': project.ios.test.publishable, ...lockHeaders('ios') });
    expect(viaBearer.status).toBe(200);
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.body.appId).toBe(project.ios.appId);
  });

  it('treats a missing, empty or malformed key as missing_api_key', async () => {
    expectError(await config({}), 401, 'authentication_error', 'missing_api_key');
    expectError(await config({ Authorization: 'Basic abc' }), 401, 'authentication_error', 'missing_api_key');
    expectError(await config({ Authorization: 'Bearer ' }), 401, 'authentication_error', 'missing_api_key');
    expectError(await config({ 'Service-Api-Key': 'cd_pub_prod_abcdefghijklmnopqrstuvwxyz' }), 401, 'authentication_error', 'missing_api_key');
  });

  it('rejects two different keys in the two headers', async () => {
    const res = await config({ Authorization: `Bearer ${project.ios.test.publishable}`, 'Service-Api-Key': project.ios.live.publishable, ...lockHeaders('ios') });
    expectError(res, 401, 'authentication_error', 'missing_api_key');
  });

  it('rejects an unknown key and a workspace key with invalid_api_key', async () => {
    expectError(await config({ 'Service-Api-Key': `cd_pub_test_${'Z'.repeat(32)}` }), 401, 'authentication_error', 'invalid_api_key');
    expectError(await config({ 'Service-Api-Key': `cd_wk_${'Z'.repeat(32)}` }), 401, 'authentication_error', 'invalid_api_key');
  });

  it('rejects a secret key on the publishable-only config endpoint', async () => {
    expectError(await config({ Authorization: `Bearer ${project.ios.test.secret}` }), 401, 'authentication_error', 'invalid_api_key');
  });
});

describe('the environment comes from the key', () => {
  it('answers test keys with sandbox and live keys with production', async () => {
    const test = await config({ Authorization: `Bearer ${project.android.test.publishable}`, ...lockHeaders('android') });
    const live = await config({ Authorization: `Bearer ${project.android.live.publishable}`, ...lockHeaders('android') });
    expect(test.body.env).toBe('sandbox');
    expect(live.body.env).toBe('production');
  });
});

describe('key lifecycle on the wire', () => {
  it('keeps a rotated-out key working during its grace and refuses it after', async () => {
    const fresh = await seedProject(service);
    const old = fresh.ios.test.publishable;
    const rotated = await rotateKey(service.deps.db, old, HOUR, service.clock.now());
    expect((await config({ Authorization: `Bearer ${old}`, ...lockHeaders('ios') })).status).toBe(200);
    expect((await config({ Authorization: `Bearer ${rotated.newKey.key}`, ...lockHeaders('ios') })).status).toBe(200);
    service.clock.advance(HOUR);
    expectError(await config({ Authorization: `Bearer ${old}`, ...lockHeaders('ios') }), 401, 'authentication_error', 'invalid_api_key');
    expect((await config({ Authorization: `Bearer ${rotated.newKey.key}`, ...lockHeaders('ios') })).status).toBe(200);
  });

  it('refuses a key rotated with no grace on the very next request', async () => {
    const fresh = await seedProject(service);
    const old = fresh.ios.live.secret;
    const heartbeat = () => service.request().get('/v1/sdk/heartbeat').set('Authorization', `Bearer ${old}`);
    expect((await heartbeat()).status).toBe(200); // now cached on this instance
    await rotateKey(service.deps.db, old, 0, service.clock.now());
    expectError(await heartbeat(), 401, 'authentication_error', 'invalid_api_key');
  });

  it('refuses a revoked key on the very next request, even from a warm cache', async () => {
    const fresh = await seedProject(service);
    const key = fresh.android.test.publishable;
    expect((await config({ Authorization: `Bearer ${key}`, ...lockHeaders('android') })).status).toBe(200);
    await revokeKey(service.deps.db, key, service.clock.now());
    expectError(await config({ Authorization: `Bearer ${key}`, ...lockHeaders('android') }), 401, 'authentication_error', 'key_revoked');
  });

  it('refuses keys of an archived app, and of an archived project', async () => {
    const fresh = await seedProject(service);
    expect((await config({ Authorization: `Bearer ${fresh.ios.test.publishable}`, ...lockHeaders('ios') })).status).toBe(200);
    await archiveApp(service.deps.db, fresh.ios.appId);
    expectError(await config({ Authorization: `Bearer ${fresh.ios.test.publishable}`, ...lockHeaders('ios') }), 401, 'authentication_error', 'invalid_api_key');
    expect((await config({ Authorization: `Bearer ${fresh.android.test.publishable}`, ...lockHeaders('android') })).status).toBe(200);
    await archiveProject(service.deps.db, fresh.projectId);
    expectError(await config({ Authorization: `Bearer ${fresh.android.test.publishable}`, ...lockHeaders('android') }), 401, 'authentication_error', 'invalid_api_key');
  });

  it('keeps serving while a key is rotated concurrently with its use', async () => {
    const fresh = await seedProject(service);
    const old = fresh.ios.test.publishable;
    const requests = Array.from({ length: 20 }, () => config({ Authorization: `Bearer ${old}`, ...lockHeaders('ios') }));
    const [rotation, ...responses] = await Promise.all([rotateKey(service.deps.db, old, HOUR, service.clock.now()), ...requests]);
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect((await config({ Authorization: `Bearer ${rotation.newKey.key}`, ...lockHeaders('ios') })).status).toBe(200);
  });

  it('lets exactly one of two concurrent rotations of a key win', async () => {
    const fresh = await seedProject(service);
    const results = await Promise.allSettled([
      rotateKey(service.deps.db, fresh.web.test.secret, HOUR, service.clock.now()),
      rotateKey(service.deps.db, fresh.web.test.secret, HOUR, service.clock.now()),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });
});

describe('rotation and revocation leave customer data alone', () => {
  it('keeps the customer and its entitlements readable with the replacement key', async () => {
    const fresh = await seedProject(service);
    const secret = (key: string) => ({ Authorization: `Bearer ${key}` });
    const identified = await service.request().post('/v1/identify').set(secret(fresh.ios.test.secret)).send({ userId: 'kept-user', anonymousId: 'kept-device' });
    const customerId = identified.body.serviceCustomerId;
    const granted = await service.request().post(`/v1/server/customers/${customerId}/grant`).set(secret(fresh.ios.test.secret)).send({ entitlementKey: 'pro', duration: 'lifetime', reason: 'support goodwill gesture for kept-user' });
    expect(granted.status).toBe(200);
    const rotated = await rotateKey(service.deps.db, fresh.ios.test.secret, 0, service.clock.now());
    await revokeKey(service.deps.db, fresh.ios.test.publishable, service.clock.now());
    const read = await service.request().get(`/v1/server/customers/${customerId}/entitlements`).set(secret(rotated.newKey.key));
    expect(read.status).toBe(200);
    expect(read.body.data.map((e: { key: string; isActive: boolean }) => [e.key, e.isActive])).toEqual([['pro', true]]);
    const again = await service.request().post('/v1/identify').set(secret(rotated.newKey.key)).send({ userId: 'kept-user', anonymousId: 'kept-device' });
    expect(again.body.serviceCustomerId).toBe(customerId);
  });
});

describe('partitioning', () => {
  it('binds every response to the key’s own project and app', async () => {
    const other = await seedProject(service);
    const mine = await config({ Authorization: `Bearer ${project.ios.test.publishable}`, ...lockHeaders('ios') });
    const theirs = await config({ Authorization: `Bearer ${other.ios.test.publishable}`, ...lockHeaders('ios') });
    expect(mine.body.projectId).toBe(project.projectId);
    expect(theirs.body.projectId).toBe(other.projectId);
    expect(mine.body.projectId).not.toBe(theirs.body.projectId);
  });
});

describeSecuredRoute({ method: 'GET', path: '/v1/config', key: 'publishable' });
describeSecuredRoute({ method: 'GET', path: '/v1/sdk/heartbeat', key: 'any' });
