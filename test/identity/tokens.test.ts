/**
 * Guarantees of identity-token verification (jose against the project's provider): on
 * identify, forged, expired, wrong-issuer, wrong-audience, wrong-subject, `alg: none` and
 * unconfigured-provider tokens are 401 identity_token_invalid; a valid token verifies against
 * a JWKS URL or a stored JWKS file; an unreachable JWKS is a retryable 500, never a pass.
 */
import { UnsecuredJWT } from 'jose';
import { JoseIdTokenVerifier } from '../../functions/src/identity/idTokens';
import { createTestService, expectError, lockHeaders, seedProject, type SeededProject, type TestService } from '../support/harness';
import { AUDIENCE, configureProvider, ISSUER, startProvider, type TestProvider } from './support/tokens';

let service: TestService;
let project: SeededProject;
let provider: TestProvider;
const identify = (body: object, p: SeededProject = project) =>
  service.request().post('/v1/identify').set({ Authorization: `Bearer ${p.ios.test.publishable}`, ...lockHeaders('ios') }).send(body);

beforeAll(async () => {
  service = createTestService();
  project = await seedProject(service);
  provider = await startProvider(() => service.clock.now());
  await configureProvider(service.deps.db, project.projectId, { jwksUri: provider.jwksUri });
});
afterAll(() => provider.close());

describe('identify with idToken', () => {
  it('accepts a valid token whose subject is userId', async () => {
    const res = await identify({ userId: 'tok-user', anonymousId: 'tok-device', idToken: await provider.sign({ sub: 'tok-user' }) });
    expect(res.status).toBe(200);
  });

  it('rejects forged, expired, wrong-issuer, wrong-audience, wrong-subject, unsigned and malformed tokens', async () => {
    const now = service.clock.now();
    const bad: [string, string][] = [
      ['forged', await provider.sign({ sub: 'tok-user' }, { key: provider.forgeryKey })],
      ['expired', await provider.sign({ sub: 'tok-user' }, { issuedAt: now - 7_200_000, expiresAt: now - 3_600_000 })],
      ['wrong issuer', await provider.sign({ sub: 'tok-user', iss: 'https://other-issuer.example' })],
      ['wrong audience', await provider.sign({ sub: 'tok-user', aud: 'other-audience' })],
      ['wrong subject', await provider.sign({ sub: 'another-user' })],
      ['unknown kid', await provider.sign({ sub: 'tok-user' }, { kid: 'rotated-away' })],
      ['alg none', new UnsecuredJWT({ sub: 'tok-user' }).setIssuer(ISSUER).setAudience(AUDIENCE).setExpirationTime('1h').encode()],
      ['garbage', 'abc.def.ghi'],
    ];
    for (const [name, idToken] of bad) {
      const res = await identify({ userId: 'tok-user', anonymousId: 'tok-device', idToken });
      if (res.status !== 401) throw new Error(`${name}: expected 401, got ${res.status}`);
      expectError(res, 401, 'authentication_error', 'identity_token_invalid');
    }
  });

  it('a token is invalid when the project has no identity provider', async () => {
    const bare = await seedProject(service);
    expectError(await identify({ userId: 'tok-user', anonymousId: 'tok-device', idToken: await provider.sign({ sub: 'tok-user' }) }, bare), 401, 'authentication_error', 'identity_token_invalid');
  });
});

describe('the verifier', () => {
  it('verifies against a stored JWKS (the jwks-file provider form)', async () => {
    const fileProject = await seedProject(service);
    await configureProvider(service.deps.db, fileProject.projectId, { jwks: JSON.stringify({ keys: [provider.publicJwk] }) });
    const verifier = new JoseIdTokenVerifier(service.deps.db);
    const now = service.clock.now();
    const check = await verifier.verify(fileProject.projectId, await provider.sign({ sub: 'file-user', email: 'f@example.com', given_name: 'Fi' }), 'file-user', now);
    expect(check).toEqual({ ok: true, identity: { subject: 'file-user', email: 'f@example.com', givenName: 'Fi' } });
    const forged = await verifier.verify(fileProject.projectId, await provider.sign({ sub: 'file-user' }, { key: provider.forgeryKey }), 'file-user', now);
    expect(forged).toMatchObject({ ok: false, reason: 'invalid' });
  });

  it('checks expiry against the service clock', async () => {
    const verifier = new JoseIdTokenVerifier(service.deps.db);
    const now = service.clock.now();
    const token = await provider.sign({ sub: 'clock-user' }, { expiresAt: now + 60_000 });
    expect((await verifier.verify(project.projectId, token, 'clock-user', now)).ok).toBe(true);
    expect(await verifier.verify(project.projectId, token, 'clock-user', now + 60_000 + 31_000)).toMatchObject({ ok: false, reason: 'invalid' });
  });

  it('an unreachable JWKS is `unavailable` (identify answers a retryable 500), never a pass', async () => {
    const down = await seedProject(service);
    await configureProvider(service.deps.db, down.projectId, { jwksUri: 'http://127.0.0.1:9/jwks.json' });
    const token = await provider.sign({ sub: 'down-user' });
    expect(await new JoseIdTokenVerifier(service.deps.db).verify(down.projectId, token, 'down-user', service.clock.now())).toMatchObject({ ok: false, reason: 'unavailable' });
    expectError(await identify({ userId: 'down-user', anonymousId: 'down-device', idToken: token }, down), 500, 'internal_error', 'internal_error');
  });
});
