/**
 * Guarantees: every response carries X-Request-Id equal to the body's request_id; paths work
 * with or without /v1; unknown routes, bad JSON and oversized bodies are 400s in the envelope;
 * preflight answers 204 with exactly the spec's CORS headers.
 */
import { logs } from '../../functions/src/http/logs';
import { createTestService, expectError, type TestService } from '../support/harness';

let service: TestService;
beforeAll(() => {
  service = createTestService();
});

describe('routing', () => {
  it('serves every path with and without /v1', async () => {
    for (const path of ['/v1/healthz', '/healthz', '/v1/healthz/', '/sdk/versions']) {
      const res = await service.request().get(path);
      expect(res.status).toBe(200);
      expect(res.headers['x-request-id']).toMatch(/^req_[A-Za-z0-9]{24}$/);
    }
  });

  it('answers an unknown route with 400 missing_required_param naming method and path', async () => {
    const res = await service.request().post('/v1/nowhere').send({});
    expectError(res, 400, 'invalid_request_error', 'missing_required_param');
    expect(res.body.error.message).toContain('POST /v1/nowhere');
    const wrongMethod = await service.request().post('/v1/healthz');
    expectError(wrongMethod, 400, 'invalid_request_error', 'missing_required_param');
    expect(wrongMethod.body.error.message).toContain('POST /v1/healthz');
  });

  it('answers OPTIONS on any v1 path with 204 and exactly the CORS headers of the spec', async () => {
    const res = await service.request().options('/v1/events').set('Origin', 'https://shop.example.com');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://shop.example.com');
    expect(res.headers['access-control-allow-methods']).toBe('GET, POST, DELETE, OPTIONS');
    expect(res.headers['access-control-allow-headers']).toBe('Authorization, Service-Api-Key, Service-Sdk-Version, Idempotency-Key, Content-Type');
    expect(res.headers['access-control-max-age']).toBe('600');
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    const unprefixed = await service.request().options('/anything/at/all').set('Origin', 'https://a.example');
    expect(unprefixed.status).toBe(204);
  });
});

describe('logging', () => {
  it('logs every rejection with the request id the client received', async () => {
    const rejected = jest.spyOn(logs, 'requestRejected');
    try {
      const res = await service.request().get('/v1/config');
      expectError(res, 401, 'authentication_error', 'missing_api_key');
      expect(rejected).toHaveBeenCalledWith(res.body.error.request_id, 'GET', '/v1/config', 401, 'missing_api_key', undefined);
    } finally {
      rejected.mockRestore();
    }
  });
});

describe('bodies', () => {
  it('rejects malformed JSON with 400 invalid_param_value, never a 500', async () => {
    const res = await service.request().post('/v1/nowhere').set('Content-Type', 'application/json').send('{"a":');
    expect(res.status).toBe(400);
  });
});

describe('the key before the body', () => {
  it('a keyless malformed body is 401 missing_api_key, not 400 invalid JSON', async () => {
    const res = await service.request().post('/v1/releases/sourcemaps').set('Content-Type', 'application/json').send('{');
    expectError(res, 401, 'authentication_error', 'missing_api_key');
    const unknown = await service.request().post('/v1/events').set('Authorization', 'Bearer cd_pub_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA').set('Content-Type', 'application/json').send('{');
    expectError(unknown, 401, 'authentication_error', 'invalid_api_key');
  });

  it('a keyless body declared past the route’s limit is 401, not 400 “too large”', async () => {
    const res = await service.request().post('/v1/releases/sourcemaps').set('Content-Type', 'application/json').set('Content-Length', String(64 * 1024 * 1024)).send('{}');
    expectError(res, 401, 'authentication_error', 'missing_api_key');
  });

  it('answers a keyless upload before its body has arrived: the body is never waited for, read or parsed', async () => {
    const { createServer, request } = await import('node:http');
    const server = createServer(service.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      // 30 MiB declared, a few bytes sent, the rest held back: only an answer that does not
      // wait for the body can arrive (the request is destroyed once it does).
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/releases/sourcemaps', headers: { 'Content-Type': 'application/json', 'Content-Length': String(30 * 1024 * 1024) } }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => {
            resolve({ status: res.statusCode ?? 0, body });
            req.destroy();
          });
        });
        req.on('error', (err) => (err.message.includes('socket hang up') || (err as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(err)));
        req.write('{"release":"1.0.0","files":[');
      });
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body).error.code).toBe('missing_api_key');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('healthz and versions', () => {
  it('healthz: no key, no-store, the specified body', async () => {
    const res = await service.request().get('/v1/healthz');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({ status: 'ok', service: 'tessera', timestamp: service.clock.now(), region: expect.any(String) });
  });

  it('sdk/versions: public for 300 s, every surface', async () => {
    const res = await service.request().get('/v1/sdk/versions');
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.body.object).toBe('sdk_versions');
    expect(Object.keys(res.body.surfaces).sort()).toEqual(['node', 'react-native', 'swift', 'web']);
    for (const surface of Object.values(res.body.surfaces) as Record<string, string>[]) {
      expect(surface).toEqual({ name: expect.any(String), latest: expect.any(String), minSupported: expect.any(String) });
    }
    expect(res.body.generatedAt).toBe(service.clock.now());
  });
});
