/**
 * Guarantees of the shared pipeline for routes with bodies (exercised through a test-only
 * route): 403 env_mismatch on a declared environment that is not the key's, JSON content type
 * and body-size limits as 400s, validation failures naming the field, and unknown failures as
 * 500 internal_error without a stack trace.
 */
import supertest from 'supertest';
import { createServiceApp } from '../../functions/src/app/serviceApp';
import { route } from '../../functions/src/http/route';
import { createTestService, expectError, lockHeaders, seedProject, type SeededProject, type TestService } from '../support/harness';

const echo = route<{ name: string; environment?: 'production' | 'sandbox'; items?: number[] }>({
  method: 'POST',
  path: '/v1/test/echo/:id',
  key: 'any',
  maxBodyBytes: 1000,
  body: {
    type: 'object',
    required: ['name'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 8 },
      // `nullable`: JSONSchemaType's spelling of an optional field; null counts as absent.
      environment: { type: 'string', enum: ['production', 'sandbox', null], nullable: true },
      items: { type: 'array', items: { type: 'integer' }, nullable: true },
    },
  },
  handler: async (ctx) => ({ body: { id: ctx.params.id, name: ctx.body.name, env: ctx.auth.wireEnv } }),
});
const boom = route({ method: 'GET', path: '/v1/test/boom', key: 'none', handler: async () => Promise.reject(new Error('secret detail')) });

let service: TestService;
let project: SeededProject;
let request: () => supertest.Agent;
beforeAll(async () => {
  service = createTestService();
  project = await seedProject(service);
  const app = createServiceApp([echo, boom], service.deps);
  request = () => supertest.agent(app);
});
const post = (body: unknown, key = project.ios.test.publishable) => request().post('/v1/test/echo/a%20b').set({ Authorization: `Bearer ${key}`, ...lockHeaders('ios') }).send(body as object);

it('passes decoded path params and the key environment to the handler', async () => {
  const res = await post({ name: 'x' });
  expect(res.body).toEqual({ id: 'a b', name: 'x', env: 'sandbox' });
});

it('refuses a body declaring the other environment: 403 env_mismatch', async () => {
  expectError(await post({ name: 'x', environment: 'production' }), 403, 'permission_error', 'env_mismatch');
  expect((await post({ name: 'x', environment: 'sandbox' })).status).toBe(200);
  expectError(await post({ name: 'x', environment: 'sandbox' }, project.ios.live.publishable), 403, 'permission_error', 'env_mismatch');
});

it('names the failing field in validation errors', async () => {
  const missing = await post({});
  expectError(missing, 400, 'invalid_request_error', 'invalid_param_value');
  expect(missing.body.error.message).toContain('`name`');
  const nested = await post({ name: 'x', items: [1, 'two'] });
  expect(nested.body.error.message).toContain('`items[1]`');
});

it('refuses a wrong content type, malformed JSON and an oversized body with 400', async () => {
  const headers = { Authorization: `Bearer ${project.ios.test.publishable}`, ...lockHeaders('ios') };
  expectError(await request().post('/v1/test/echo/1').set(headers).set('Content-Type', 'text/plain').send('name=x'), 400, 'invalid_request_error', 'invalid_param_value');
  expectError(await request().post('/v1/test/echo/1').set(headers).set('Content-Type', 'application/json').send('{"name":'), 400, 'invalid_request_error', 'invalid_param_value');
  const big = await post({ name: 'x', pad: 'y'.repeat(2000) });
  expectError(big, 400, 'invalid_request_error', 'invalid_param_value');
  expect(big.body.error.message).toContain('1000 bytes');
});

it('turns an unexpected failure into 500 internal_error with no detail in the body', async () => {
  const res = await request().get('/v1/test/boom');
  expectError(res, 500, 'internal_error', 'internal_error');
  expect(JSON.stringify(res.body)).not.toContain('secret detail');
  expect(JSON.stringify(res.body)).not.toContain('at ');
});

it('answers a just-revoked cached key with 401 key_revoked even when its body is invalid', async () => {
  const fresh = await seedProject(service);
  const key = fresh.android.test.secret;
  const send = (body: unknown) => request().post('/v1/test/echo/1').set('Authorization', `Bearer ${key}`).send(body as object);
  expect((await send({ name: 'x' })).status).toBe(200); // the key is now cached on this instance
  const { revokeKey } = await import('../../functions/src/keys/lifecycle');
  await revokeKey(service.deps.db, key, service.clock.now());
  expectError(await send({}), 401, 'authentication_error', 'key_revoked');
});
