import { revokeKey } from '../../functions/src/keys/lifecycle';
import type { KeyRequirement } from '../../functions/src/http/route';
import { createTestService, expectError, lockHeaders, seedProject, type SeededProject, type TestService } from './harness';

export interface SecuredRoute {
  method: 'GET' | 'POST';
  /** A path that exists (use a real customer id where the path needs one). */
  path: string | ((project: SeededProject) => string);
  key: Exclude<KeyRequirement, 'none'>;
  body?: unknown;
}

/**
 * The security checks every keyed route must pass, shared by all suites: missing, malformed,
 * unknown, wrong-type and revoked keys, and the platform lock for publishable keys.
 * Call it at the top level of a test file: `describeSecuredRoute({ method, path, key })`.
 */
export function describeSecuredRoute(spec: SecuredRoute): void {
  describe(`${spec.method} ${typeof spec.path === 'string' ? spec.path : '(dynamic path)'} security`, () => {
    let service: TestService;
    let project: SeededProject;
    const send = (headers: Record<string, string>) => {
      const path = typeof spec.path === 'string' ? spec.path : spec.path(project);
      const req = spec.method === 'GET' ? service.request().get(path) : service.request().post(path).send((spec.body ?? {}) as object);
      return req.set(headers);
    };

    beforeAll(async () => {
      service = createTestService();
      project = await seedProject(service);
    });

    it('rejects a request without a key: 401 missing_api_key', async () => {
      expectError(await send({}), 401, 'authentication_error', 'missing_api_key');
    });

    it('rejects a malformed key: 401 missing_api_key', async () => {
      expectError(await send({ Authorization: 'Bearer not-a-key' }), 401, 'authentication_error', 'missing_api_key');
    });

    it('rejects an unknown key: 401 invalid_api_key', async () => {
      const kind = spec.key === 'publishable' ? 'pub' : 'sk';
      expectError(await send({ 'Service-Api-Key': `cd_${kind}_test_${'x'.repeat(32)}` }), 401, 'authentication_error', 'invalid_api_key');
    });

    if (spec.key === 'secret') {
      it('rejects a publishable key: 401 invalid_api_key', async () => {
        expectError(await send({ Authorization: `Bearer ${project.ios.test.publishable}`, ...lockHeaders('ios') }), 401, 'authentication_error', 'invalid_api_key');
      });
    }
    if (spec.key === 'publishable') {
      it('rejects a secret key: 401 invalid_api_key', async () => {
        expectError(await send({ Authorization: `Bearer ${project.ios.test.secret}` }), 401, 'authentication_error', 'invalid_api_key');
      });
    }
    if (spec.key !== 'secret') {
      it('enforces the platform lock of publishable keys: 403', async () => {
        expectError(await send({ Authorization: `Bearer ${project.ios.test.publishable}`, 'X-Service-Bundle-Id': 'com.other' }), 403, 'permission_error', 'bundle_id_not_allowed');
        expectError(await send({ Authorization: `Bearer ${project.web.test.publishable}`, Origin: 'https://evil.example.org' }), 403, 'permission_error', 'origin_not_allowed');
      });
    }

    it('rejects a revoked key on the very next request: 401 key_revoked', async () => {
      const keys = spec.key === 'publishable' ? { key: project.android.live.publishable, headers: lockHeaders('android') } : { key: project.android.live.secret, headers: {} };
      await send({ Authorization: `Bearer ${keys.key}`, ...keys.headers }); // warm the key cache
      await revokeKey(service.deps.db, keys.key, service.clock.now());
      expectError(await send({ Authorization: `Bearer ${keys.key}`, ...keys.headers }), 401, 'authentication_error', 'key_revoked');
    });
  });
}
