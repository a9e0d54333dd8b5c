/**
 * Guarantees of the identity operator commands: `identity-provider set` validates and stores
 * what verification uses; `conflicts list` shows queued merge conflicts; `conflicts resolve
 * --merge` moves identities and entitlements into the canonical customer in one audited
 * transaction and `--keep-separate` closes the review; `customers show` finds a customer by
 * any identifier.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DAY } from '../../functions/src/clock';
import type { AuditEntry } from '../../functions/src/audit/model';
import type { CustomerRecord } from '../../functions/src/customers/model';
import { linkMigratedUser } from '../../functions/src/identity/repository';
import { customerRef } from '../../functions/src/customers/refs';
import { EnvScope } from '../../functions/src/store/scope';
import { operatorCommands } from '../support/operatorCommands';
import { createTestService, lockHeaders, seedProject, type SeededProject, type TestService } from '../support/harness';
import { seedGrants } from './support/grants';
import { AUDIENCE, ISSUER, startProvider, type TestProvider } from './support/tokens';

let service: TestService;
let project: SeededProject;
let provider: TestProvider;
const scope = () => new EnvScope(service.deps.db, project.projectId, 'test');
const pub = () => ({ Authorization: `Bearer ${project.ios.test.publishable}`, ...lockHeaders('ios') });
const identify = (body: object) => service.request().post('/v1/identify').set(pub()).send(body);
const entitlements = (query: object) => service.request().get('/v1/entitlements').query(query).set(pub());

const { tessera, tesseraFails } = operatorCommands(() => service);

beforeAll(async () => {
  service = createTestService();
  project = await seedProject(service);
  provider = await startProvider(() => service.clock.now());
});
afterAll(() => provider.close());
beforeEach(() => service.clock.advance(61_000));

describe('identity-provider set', () => {
  it('stores a JWKS URL provider that identify then verifies against', async () => {
    const out = await tessera('identity-provider set', { project: project.projectId, issuer: ISSUER, audience: AUDIENCE, 'jwks-uri': provider.jwksUri });
    expect(out).toMatchObject({ projectId: project.projectId, issuer: ISSUER, audience: AUDIENCE, jwksUri: provider.jwksUri, jwksKeys: null });
    const res = await identify({ userId: 'cli-user', anonymousId: 'cli-device', idToken: await provider.sign({ sub: 'cli-user' }) });
    expect(res.status).toBe(200);
  });

  it('stores a JWKS file provider, public keys only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-jwks-'));
    const good = join(dir, 'jwks.json');
    writeFileSync(good, JSON.stringify({ keys: [provider.publicJwk] }));
    const fileProject = await seedProject(service);
    const out = await tessera('identity-provider set', { project: fileProject.projectId, issuer: ISSUER, audience: AUDIENCE, 'jwks-file': good });
    expect(out).toMatchObject({ jwksUri: null, jwksKeys: 1 });
    const check = await service.deps.idTokens.verify(fileProject.projectId, await provider.sign({ sub: 'file-user' }), 'file-user', service.clock.now());
    expect(check.ok).toBe(true);

    const privateFile = join(dir, 'private.json');
    writeFileSync(privateFile, JSON.stringify({ keys: [{ ...provider.publicJwk, d: 'secret' }] }));
    expect((await tesseraFails('identity-provider set', { project: fileProject.projectId, issuer: ISSUER, audience: AUDIENCE, 'jwks-file': privateFile })).code).toBe('invalid_argument');
    const notJson = join(dir, 'bad.json');
    writeFileSync(notJson, '{');
    expect((await tesseraFails('identity-provider set', { project: fileProject.projectId, issuer: ISSUER, audience: AUDIENCE, 'jwks-file': notJson })).code).toBe('invalid_argument');
  });

  it('refuses both or neither key source, plain http to a remote host, and an unknown project', async () => {
    const base = { project: project.projectId, issuer: ISSUER, audience: AUDIENCE };
    expect((await tesseraFails('identity-provider set', base)).code).toBe('invalid_argument');
    expect((await tesseraFails('identity-provider set', { ...base, 'jwks-uri': provider.jwksUri, 'jwks-file': '/tmp/x.json' })).code).toBe('invalid_argument');
    expect((await tesseraFails('identity-provider set', { ...base, 'jwks-uri': 'http://idp.example.com/jwks.json' })).code).toBe('invalid_argument');
    expect((await tesseraFails('identity-provider set', { ...base, project: 'proj_missing', 'jwks-uri': 'https://idp.example.com/jwks.json' })).code).toBe('not_found');
  });
});

describe('conflicts', () => {
  async function makeConflict(user: string) {
    const userCustomer = (await identify({ userId: user, anonymousId: `${user}-phone`, traits: { plan: 'pro' } })).body.serviceCustomerId as string;
    // The tablet's customer is anonymous (it bought before any login, say): a device of another
    // developer user would move to the user instead of conflicting (sharedDevice.test.ts).
    const deviceCustomer = (await linkMigratedUser(scope(), [{ kind: 'anonymous', id: `${user}-tablet` }], { email: 'old@example.com', traits: { plan: 'free', city: 'Oslo' } }, service.clock.now())).customerId as string;
    const res = await identify({ userId: user, anonymousId: `${user}-tablet` });
    expect(res.body).toMatchObject({ serviceCustomerId: userCustomer, mergePending: true });
    const { conflicts } = await tessera('conflicts list', { project: project.projectId, env: 'test' });
    const conflict = conflicts.find((c: { canonicalCustomerId: string }) => c.canonicalCustomerId === userCustomer);
    expect(conflict).toMatchObject({ status: 'open', otherCustomerIds: [deviceCustomer], projectId: project.projectId, env: 'test' });
    return { userCustomer, deviceCustomer, conflictId: conflict.conflictId as string };
  }

  it('--merge moves identities and entitlements into the canonical customer, audited, in one transaction', async () => {
    const { userCustomer, deviceCustomer, conflictId } = await makeConflict('merge-user');
    const now = service.clock.now();
    await seedGrants(scope(), deviceCustomer, [{ entitlementKey: 'tablet_pack', validUntil: now + 10 * DAY }], now);
    await seedGrants(scope(), userCustomer, [{ grantId: 'g_user_pro', entitlementKey: 'pro', validUntil: null }], now);

    const report = await tessera('conflicts resolve', { conflict: conflictId, merge: true });
    expect(report).toMatchObject({ decision: 'merged', canonicalCustomerId: userCustomer, mergedCustomerIds: [deviceCustomer], movedIdentities: 1, movedGrants: 1, auditEventId: expect.stringMatching(/^srv_merge_/) });

    const read = await entitlements({ anonymousId: 'merge-user-tablet' });
    expect(read.body.serviceCustomerId).toBe(userCustomer);
    expect(read.body.data.map((e: { key: string }) => e.key)).toEqual(['pro', 'tablet_pack']);
    expect((await entitlements({ customerId: deviceCustomer })).body.serviceCustomerId).toBe(userCustomer);

    const canonical = (await customerRef(scope(), userCustomer).get()).data() as CustomerRecord;
    expect(canonical.traits).toEqual({ plan: 'pro', city: 'Oslo' });
    expect(canonical.email).toBe('old@example.com');
    expect(canonical.identities.map((i) => i.id).sort()).toEqual(['merge-user', 'merge-user-phone', 'merge-user-tablet']);
    expect((await customerRef(scope(), deviceCustomer).get()).data()).toMatchObject({ status: 'merged', mergedInto: userCustomer });
    const audit = (await scope().collection('audit').doc(report.auditEventId).get()).data() as AuditEntry;
    expect(audit).toMatchObject({ eventType: 'customer.merged', rail: 'manual', decision: 'applied', customerId: userCustomer, projectId: project.projectId, env: 'test' });

    // the merged pair no longer conflicts; the conflict cannot be resolved twice
    expect((await identify({ userId: 'merge-user', anonymousId: 'merge-user-tablet' })).body).toMatchObject({ serviceCustomerId: userCustomer, mergePending: false });
    expect((await tesseraFails('conflicts resolve', { conflict: conflictId, merge: true })).code).toBe('conflict');
    const { conflicts } = await tessera('conflicts list', { project: project.projectId, env: 'test' });
    expect(conflicts.map((c: { conflictId: string }) => c.conflictId)).not.toContain(conflictId);
  });

  it('--keep-separate closes the review without moving anything', async () => {
    const { userCustomer, deviceCustomer, conflictId } = await makeConflict('keep-user');
    expect(await tessera('conflicts resolve', { conflict: conflictId, 'keep-separate': true })).toMatchObject({ decision: 'kept_separate', movedIdentities: 0, movedGrants: 0 });
    expect((await entitlements({ anonymousId: 'keep-user-tablet' })).body.serviceCustomerId).toBe(deviceCustomer);
    expect((await identify({ userId: 'keep-user', anonymousId: 'keep-user-tablet' })).body).toMatchObject({ serviceCustomerId: userCustomer, mergePending: false });
  });

  it('rejects an unknown or malformed conflict id and a missing decision', async () => {
    expect((await tesseraFails('conflicts resolve', { conflict: 'nope', merge: true })).code).toBe('invalid_argument');
    expect((await tesseraFails('conflicts resolve', { conflict: `cfl_test_${'0'.repeat(24)}_${project.projectId}`, merge: true })).code).toBe('not_found');
    expect((await tesseraFails('conflicts resolve', { conflict: `cfl_test_${'0'.repeat(24)}_${project.projectId}` })).code).toBe('invalid_argument');
  });
});

describe('customers show', () => {
  it('finds a customer by id, user id or anonymous id, with links, assurance and entitlements', async () => {
    const id = (await identify({ userId: 'show-user', anonymousId: 'show-device', email: 'show@example.com' })).body.serviceCustomerId;
    const now = service.clock.now();
    await seedGrants(scope(), id, [{ entitlementKey: 'pro', validUntil: now + DAY }], now);
    for (const lookup of [{ customer: id }, { 'user-id': 'show-user' }, { 'anonymous-id': 'show-device' }]) {
      const out = await tessera('customers show', { project: project.projectId, env: 'test', ...lookup });
      expect(out.customer).toMatchObject({ customerId: id, email: 'show@example.com', status: 'active' });
      expect(out.identityLinks.map((l: { kind: string; assurance: string }) => [l.kind, l.assurance]).sort()).toEqual([['anonymous', 'self_asserted'], ['developer', 'self_asserted']]);
      expect(out.entitlements).toEqual([expect.objectContaining({ key: 'pro', isActive: true })]);
    }
    expect((await tesseraFails('customers show', { project: project.projectId, env: 'live', customer: id })).code).toBe('not_found');
    expect((await tesseraFails('customers show', { project: project.projectId, env: 'test', customer: id, 'user-id': 'show-user' })).code).toBe('invalid_argument');
  });
});
