/**
 * Guarantees of the dashboard's authority: a Firebase Authentication ID token is verified by
 * firebase-admin's real verifier (signature against published certificates, issuer, audience,
 * expiry, verified email) — forged, expired, foreign or unverified tokens are `401
 * operator_unauthenticated` in the shared envelope; an operator reaches only the projects they
 * are granted on, a viewer reads and cannot change (`403 insufficient_scope`), an admin changes;
 * the local login link is valid only for its run and its session tokens only from it; API keys
 * are no authority here; operator grants (`tessera operators add|list|remove`) are audited.
 */
import { ManualClock } from '../support/manualClock';
import { ENVS } from '../../functions/src/store/env';
import { EnvScope } from '../../functions/src/store/scope';
import { FirebaseAuthStandIn } from '../support/firebaseAuthStandIn';
import { createTestService, expectError, seedProject, type SeededProject, type TestService } from '../support/harness';
import { operatorCommands } from '../support/operatorCommands';
import { enableLocalLogin } from '../support/localSignIn';

const auth = new FirebaseAuthStandIn();
let service: TestService;
let project: SeededProject;
let other: SeededProject;
const { tessera, tesseraFails } = operatorCommands(() => service);

beforeAll(async () => {
  await auth.start();
  service = createTestService({ operatorTokens: auth.verifier });
  project = await seedProject(service);
  other = await seedProject(service);
  await tessera('operators add', { project: project.projectId, email: 'Admin@Example.com', role: 'admin' });
  await tessera('operators add', { project: project.projectId, email: 'viewer@example.com', role: 'viewer' });
  await tessera('operators add', { project: other.projectId, email: 'viewer@example.com', role: 'admin' });
});
afterAll(() => auth.stop());

const base = (projectId: string, env = 'test') => `/v1/dashboard-api/projects/${projectId}/${env}`;
const asToken = (token: string) => ({ Authorization: `Bearer ${token}` });

describe('Firebase Authentication ID tokens', () => {
  it('signs in with a valid token and lists the granted projects with their roles', async () => {
    const res = await service.request().get('/v1/dashboard-api/session').set(asToken(await auth.token({ email: 'viewer@example.com' })));
    expect(res.status).toBe(200);
    expect(res.body.data.operator).toEqual({ email: 'viewer@example.com', via: 'firebase' });
    const roles = Object.fromEntries(res.body.data.projects.map((p: { projectId: string; role: string }) => [p.projectId, p.role]));
    expect(roles).toEqual({ [project.projectId]: 'viewer', [other.projectId]: 'admin' });
    expect(auth.certificateRequests).toBeGreaterThan(0); // the certificates were really fetched and used
  });

  it.each([
    ['signed by a key that is not published', { forged: true }],
    ['expired', { expiresInSeconds: -60 }],
    ['for another Firebase project', { audience: 'someone-else' }],
    ['from another issuer', { issuer: 'https://securetoken.google.com/someone-else' }],
    ['with an unverified email', { emailVerified: false }],
  ])('refuses a token %s: 401 operator_unauthenticated', async (_name, claims) => {
    const res = await service.request().get('/v1/dashboard-api/session').set(asToken(await auth.token({ email: 'admin@example.com', ...claims })));
    expectError(res, 401, 'authentication_error', 'operator_unauthenticated');
  });

  it('refuses a missing, malformed or tampered token and an API key', async () => {
    expectError(await service.request().get('/v1/dashboard-api/session'), 401, 'authentication_error', 'operator_unauthenticated');
    expectError(await service.request().get('/v1/dashboard-api/session').set(asToken('not-a-jwt')), 401, 'authentication_error', 'operator_unauthenticated');
    const token = await auth.token({ email: 'viewer@example.com' });
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, email: 'admin@example.com' })).toString('base64url')}.${signature}`;
    expectError(await service.request().get('/v1/dashboard-api/session').set(asToken(tampered)), 401, 'authentication_error', 'operator_unauthenticated');
    expectError(await service.request().get(`${base(project.projectId)}/apps`).set(asToken(project.web.test.secret)), 401, 'authentication_error', 'operator_unauthenticated');
  });

  it('lets a viewer read and refuses its changes with 403 insufficient_scope', async () => {
    const viewer = asToken(await auth.token({ email: 'viewer@example.com' }));
    const apps = await service.request().get(`${base(project.projectId)}/apps`).set(viewer);
    expect(apps.status).toBe(200);
    expect(apps.body.data.map((a: { appId: string }) => a.appId).sort()).toEqual([project.web.appId, project.ios.appId, project.android.appId].sort());
    const create = await service.request().post(`${base(project.projectId)}/apps`).set(viewer).send({ platform: 'web', allowedOrigins: ['https://x.example.com'] });
    expectError(create, 403, 'permission_error', 'insufficient_scope');
    const revoke = await service.request().post(`${base(project.projectId)}/keys/${project.web.test.secretId}/revoke`).set(viewer).send({});
    expectError(revoke, 403, 'permission_error', 'insufficient_scope');
    // nothing changed: the key still works
    expect((await service.request().get('/v1/server/audit/srv_none').set(asToken(project.web.test.secret))).status).toBe(400);
  });

  it('lets an admin change, audited with the operator as actor', async () => {
    const admin = asToken(await auth.token({ email: 'admin@example.com' }));
    const res = await service.request().post(`${base(project.projectId, 'live')}/apps`).set(admin).send({ platform: 'ios', bundleId: 'com.example.fresh', name: 'Fresh' });
    expect(res.status).toBe(200);
    const entry = await service.request().get(`${base(project.projectId, 'live')}/audit/${res.body.data.auditEventId}`).set(admin);
    expect(entry.body.data).toMatchObject({ eventType: 'app.created', details: { surface: 'dashboard', operator: 'admin@example.com', appId: res.body.data.appId } });
  });

  it('refuses a project the operator is not granted on, and an environment that is not test or live', async () => {
    const admin = asToken(await auth.token({ email: 'admin@example.com' }));
    expectError(await service.request().get(`${base(other.projectId)}/apps`).set(admin), 403, 'permission_error', 'insufficient_scope');
    expectError(await service.request().get(`${base('proj_doesNotExist')}/apps`).set(admin), 403, 'permission_error', 'insufficient_scope');
    expectError(await service.request().get(`${base(project.projectId, 'prod')}/apps`).set(admin), 400, 'invalid_request_error', 'invalid_param_value');
  });
});

describe('the local login link', () => {
  it('exchanges this run’s login token for a session that works, and nothing else', async () => {
    const loginToken = enableLocalLogin(service.deps.operators);
    expectError(await service.request().post('/v1/dashboard-api/session/local').send({ loginToken: 'x'.repeat(43) }), 401, 'authentication_error', 'operator_unauthenticated');
    const res = await service.request().post('/v1/dashboard-api/session/local').send({ loginToken });
    expect(res.status).toBe(200);
    expect(res.headers['set-cookie']).toBeUndefined(); // no cookie-borne authority
    const { sessionToken } = res.body.data;
    expect(sessionToken).toMatch(/^tds_/);
    const session = await service.request().get('/v1/dashboard-api/session').set(asToken(sessionToken));
    expect(session.body.data.operator).toEqual({ email: 'local-operator@localhost', via: 'local' });
    expect(session.body.data.projects.map((p: { projectId: string }) => p.projectId)).toContain(project.projectId);
    expectError(await service.request().get('/v1/dashboard-api/session').set(asToken(`tds_${'A'.repeat(43)}`)), 401, 'authentication_error', 'operator_unauthenticated');
  });

  it('signs in once: the same link is refused the second time, and the runner is given the next link (regression: it could be exchanged again)', async () => {
    const fresh = createTestService({ operatorTokens: auth.verifier });
    const printed: string[] = [];
    const first = enableLocalLogin(fresh.deps.operators, (next) => printed.push(next));
    expect((await fresh.request().post('/v1/dashboard-api/session/local').send({ loginToken: first })).status).toBe(200);
    expectError(await fresh.request().post('/v1/dashboard-api/session/local').send({ loginToken: first }), 401, 'authentication_error', 'operator_unauthenticated');
    expect(printed).toHaveLength(1);
    expect(printed[0]).not.toBe(first);
    expect((await fresh.request().post('/v1/dashboard-api/session/local').send({ loginToken: printed[0] })).status).toBe(200);
    expectError(await fresh.request().post('/v1/dashboard-api/session/local').send({ loginToken: printed[0] }), 401, 'authentication_error', 'operator_unauthenticated');
  });

  it('signs out on the server: the session token is refused afterwards, other sessions are not', async () => {
    const fresh = createTestService({ operatorTokens: auth.verifier });
    const printed: string[] = [];
    const exchange = async (loginToken: string) => (await fresh.request().post('/v1/dashboard-api/session/local').send({ loginToken })).body.data.sessionToken as string;
    const leaving = await exchange(enableLocalLogin(fresh.deps.operators, (next) => printed.push(next)));
    const staying = await exchange(printed[0]);
    const out = await fresh.request().post('/v1/dashboard-api/session/sign-out').set(asToken(leaving)).send({});
    expect(out.status).toBe(200);
    expect(out.body.data).toEqual({ signedOut: true });
    expectError(await fresh.request().get('/v1/dashboard-api/session').set(asToken(leaving)), 401, 'authentication_error', 'operator_unauthenticated');
    expect((await fresh.request().get('/v1/dashboard-api/session').set(asToken(staying))).status).toBe(200);
  });

  it('is refused by a process that did not enable it (a deployed function)', async () => {
    const deployed = createTestService({ operatorTokens: auth.verifier });
    expectError(await deployed.request().post('/v1/dashboard-api/session/local').send({ loginToken: 'anything' }), 401, 'authentication_error', 'operator_unauthenticated');
  });
});

describe('signing out (Firebase Authentication)', () => {
  // The sign-out is recorded at the service's clock, two minutes behind the tokens' real time.
  const signedOutBefore = () => createTestService({ operatorTokens: auth.verifier, clock: new ManualClock(Date.now() - 120_000) });
  const nowSeconds = () => Math.floor(Date.now() / 1000);

  it('refuses every token of the sign-in that signed out (refreshed ones too), and accepts a later sign-in', async () => {
    const service = signedOutBefore();
    const uid = `uid_out_${Date.now()}`;
    const earlierSignIn = { email: 'viewer@example.com', uid, authTime: nowSeconds() - 180 };
    const token = await auth.token(earlierSignIn);
    expect((await service.request().get('/v1/dashboard-api/session').set(asToken(token))).status).toBe(200);
    expect((await service.request().post('/v1/dashboard-api/session/sign-out').set(asToken(token)).send({})).status).toBe(200);
    expectError(await service.request().get('/v1/dashboard-api/session').set(asToken(token)), 401, 'authentication_error', 'operator_unauthenticated');
    // A refreshed ID token keeps its sign-in's auth_time: refused as well.
    expectError(await service.request().get('/v1/dashboard-api/session').set(asToken(await auth.token(earlierSignIn))), 401, 'authentication_error', 'operator_unauthenticated');
    const signedInAgain = await auth.token({ email: 'viewer@example.com', uid, authTime: nowSeconds() - 10 });
    expect((await service.request().get('/v1/dashboard-api/session').set(asToken(signedInAgain))).status).toBe(200);
  });

  it('ends only the signed-out user’s sessions; nobody signs out without a valid token', async () => {
    const service = signedOutBefore();
    const leaving = await auth.token({ email: 'viewer@example.com', uid: `uid_a_${Date.now()}`, authTime: nowSeconds() - 180 });
    const other = await auth.token({ email: 'admin@example.com', uid: `uid_b_${Date.now()}`, authTime: nowSeconds() - 180 });
    expectError(await service.request().post('/v1/dashboard-api/session/sign-out').send({}), 401, 'authentication_error', 'operator_unauthenticated');
    expectError(await service.request().post('/v1/dashboard-api/session/sign-out').set(asToken(await auth.token({ email: 'viewer@example.com', forged: true }))).send({}), 401, 'authentication_error', 'operator_unauthenticated');
    expect((await service.request().post('/v1/dashboard-api/session/sign-out').set(asToken(leaving)).send({})).status).toBe(200);
    expect((await service.request().get('/v1/dashboard-api/session').set(asToken(other))).status).toBe(200);
  });
});

describe('sign-in options', () => {
  it('names no Auth emulator outside the emulator suite', async () => {
    const res = await service.request().get('/v1/dashboard-api/session/options');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ authEmulator: null });
  });
});

describe('tessera operators', () => {
  it('adds, changes, lists and removes operators, each change audited in both environments', async () => {
    const added = await tessera('operators add', { project: other.projectId, email: 'new@example.com', role: 'viewer' });
    const changed = await tessera('operators add', { project: other.projectId, email: 'NEW@example.com', role: 'admin' });
    expect((await tessera('operators list', { project: other.projectId })).operators).toEqual(
      expect.arrayContaining([expect.objectContaining({ email: 'new@example.com', role: 'admin' })]),
    );
    const removed = await tessera('operators remove', { project: other.projectId, email: 'new@example.com' });
    expect((await tessera('operators list', { project: other.projectId })).operators.map((o: { email: string }) => o.email)).not.toContain('new@example.com');
    for (const env of ENVS) {
      const scope = new EnvScope(service.deps.db, other.projectId, env);
      const types = await Promise.all([added, changed, removed].map(async (r) => (await scope.doc('audit', r.auditEventId).get()).get('eventType')));
      expect(types).toEqual(['operator.added', 'operator.role_changed', 'operator.removed']);
    }
    expect((await tesseraFails('operators remove', { project: other.projectId, email: 'new@example.com' })).code).toBe('not_found');
    expect((await tesseraFails('operators add', { project: other.projectId, email: 'not-an-email', role: 'admin' })).code).toBe('invalid_argument');
    expect((await tesseraFails('operators add', { project: other.projectId, email: 'a@example.com', role: 'owner' })).code).toBe('invalid_argument');
    expect((await tesseraFails('operators add', { project: 'proj_nope', email: 'a@example.com', role: 'admin' })).code).toBe('not_found');
  });

  it('takes effect on the next request: a removed operator is refused', async () => {
    await tessera('operators add', { project: project.projectId, email: 'temp@example.com', role: 'admin' });
    const temp = asToken(await auth.token({ email: 'temp@example.com' }));
    expect((await service.request().get(`${base(project.projectId)}/apps`).set(temp)).status).toBe(200);
    await tessera('operators remove', { project: project.projectId, email: 'temp@example.com' });
    expectError(await service.request().get(`${base(project.projectId)}/apps`).set(temp), 403, 'permission_error', 'insufficient_scope');
  });
});
