/**
 * Guarantees of the report routes' access rules: secret keys only (the shared security suite:
 * missing, malformed, unknown, publishable and revoked keys); each route's scope, refused
 * `403 insufficient_scope` (type permission_error) before any data is read; the aggregate scopes
 * are a new key's default, while `reporting:identity` needs the row-level acknowledgement at key
 * creation; bad query parameters are 400s in the error envelope.
 */
import { createKeys } from '../../functions/src/keys/lifecycle';
import { createApp } from '../../functions/src/projects/repository';
import { describeSecuredRoute } from '../support/securitySuite';
import { createTestService, expectError, seedProject, type SeededProject, type TestService } from '../support/harness';

const FINGERPRINT = '0123456789abcdef0123456789abcdef';
const ROUTES: { path: string; scope: string }[] = [
  { path: '/v1/reports/subscribers', scope: 'reporting:aggregate' },
  { path: '/v1/reports/revenue', scope: 'revenue:read' },
  { path: '/v1/reports/events', scope: 'buckets:read' },
  { path: '/v1/reports/errors', scope: 'errors:read' },
  { path: `/v1/reports/errors/${FINGERPRINT}`, scope: 'errors:read' },
  { path: '/v1/reports/customers', scope: 'reporting:identity' },
];

for (const { path } of ROUTES) describeSecuredRoute({ method: 'GET', path, key: 'secret' });

let service: TestService;
let project: SeededProject;
beforeAll(async () => {
  service = createTestService({ settings: { exposeRoundTrips: true } });
  project = await seedProject(service);
});
// A second per test: the reports bucket (burst 20, 1/s) refills a token for each, as real time would.
beforeEach(() => service.clock.advance(1000));

/** A secret key of a new app of the project (test environment) with exactly these scopes. */
async function keyWith(scopes: string[], acknowledgeRowLevelData = false): Promise<string> {
  const app = await createApp(service.deps.db, { projectId: project.projectId, platform: 'android', packageName: 'com.example.reports' }, service.clock.now());
  const minted = await createKeys(service.deps.db, { appId: app.appId, env: 'test', scopes, acknowledgeRowLevelData }, service.clock.now());
  return minted.secret.key;
}
const get = (path: string, key: string) => service.request().get(path).set('Authorization', `Bearer ${key}`);

describe('scopes', () => {
  it.each(ROUTES)('$path needs $scope: any other scope is 403 insufficient_scope, read nothing', async ({ path, scope }) => {
    const others = ['reporting:aggregate', 'revenue:read', 'errors:read', 'buckets:read'].filter((s) => s !== scope);
    const key = await keyWith(others);
    await get('/v1/reports/subscribers?from=0&to=1', key); // warms the key cache when allowed
    const res = await get(path, key);
    expectError(res, 403, 'permission_error', 'insufficient_scope');
    expect(res.body.error.message).toContain(scope);
    // The only store work: the key's own re-check (a report reads at least one more time).
    expect(res.headers['x-tessera-round-trips']).toBe('1');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('a new key gets the aggregate scopes by default: every aggregate report, not customers', async () => {
    const key = project.ios.test.secret;
    for (const { path, scope } of ROUTES) {
      const res = await get(path === `/v1/reports/errors/${FINGERPRINT}` ? '/v1/reports/errors' : path, key);
      if (scope === 'reporting:identity') expectError(res, 403, 'permission_error', 'insufficient_scope');
      else expect([path, res.status]).toEqual([path, 200]);
    }
  });

  it('reporting:identity is only granted with the row-level acknowledgement, and then reads customers', async () => {
    await expect(keyWith(['reporting:identity'])).rejects.toThrow(/acknowledge-row-level-data/);
    const key = await keyWith(['reporting:identity', 'reporting:aggregate'], true);
    const res = await get('/v1/reports/customers', key);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'list', data: [], hasMore: false, nextCursor: null, env: 'sandbox' });
    expect((await get('/v1/reports/revenue', key)).status).toBe(403);
  });
});

describe('query parameters', () => {
  const key = () => project.web.test.secret;
  it.each([
    ['/v1/reports/subscribers?from=abc', 'from'],
    ['/v1/reports/revenue?granularity=week', 'granularity'],
    ['/v1/reports/events?from=1&to=1&extra=1', 'extra'],
    ['/v1/reports/events?to=0&from=5', 'from'],
    [`/v1/reports/events?from=${Date.now() - 40 * 86_400_000}&granularity=hour`, 'from'],
    ['/v1/reports/errors?limit=0', 'limit'],
    ['/v1/reports/errors?limit=101', 'limit'],
    ['/v1/reports/errors?cursor=bm90LWEtY3Vyc29y', 'cursor'],
    ['/v1/reports/errors?cursor=%25%25', 'cursor'],
    ['/v1/reports/subscribers?from=1&from=2', 'from'],
    ['/v1/reports/errors/not-a-fingerprint', 'error group'],
    [`/v1/reports/errors/${FINGERPRINT}`, 'error group'],
  ])('%s is 400 invalid_param_value naming %s', async (path, field) => {
    const res = await get(path, key());
    expectError(res, 400, 'invalid_request_error', 'invalid_param_value');
    expect(res.body.error.message).toContain(field);
  });
});

describe('query parameters of the customers route (a key with reporting:identity)', () => {
  let identityKey: string;
  beforeAll(async () => {
    identityKey = await keyWith(['reporting:identity'], true);
  });
  it.each([
    ['/v1/reports/customers?limit=abc', 'limit'],
    ['/v1/reports/customers?limit=101', 'limit'],
    ['/v1/reports/customers?cursor=%25%25', 'cursor'],
    ['/v1/reports/customers?from=1', 'from'],
  ])('%s is 400 invalid_param_value naming %s', async (path, field) => {
    const res = await get(path, identityKey);
    expectError(res, 400, 'invalid_request_error', 'invalid_param_value');
    expect(res.body.error.message).toContain(field);
  });
});

describe('rate limit', () => {
  it('every report route shares the reports bucket (1/s, burst 20): a loop of reports meets 429 rate_limited', async () => {
    const fresh = await seedProject(service); // its own bucket; the service clock stands still, so nothing refills
    const key = fresh.ios.test.secret;
    const yearAgo = service.clock.now() - 365 * 86_400_000;
    const paths = ['/v1/reports/events', '/v1/reports/subscribers', '/v1/reports/revenue', '/v1/reports/errors'];
    for (let i = 0; i < 20; i += 1) expect((await get(`${paths[i % paths.length]}?from=${yearAgo}`, key)).status).toBe(200);
    const limited = await get(`/v1/reports/events?from=${yearAgo}`, key);
    expectError(limited, 429, 'rate_limit_error', 'rate_limited');
    expect(limited.headers['retry-after']).toBe('1');
    // The other environment and other projects have buckets of their own.
    expect((await get(`/v1/reports/events?from=${yearAgo}`, fresh.ios.live.secret)).status).toBe(200);
    expect((await get(`/v1/reports/events?from=${yearAgo}`, project.ios.live.secret)).status).toBe(200);
  });
});
