/**
 * Guarantees of the API description: the OpenAPI document is generated from the route table,
 * the committed copy (docs/openapi.json) and the built copy the service serves are that
 * generation exactly, every mounted route (method, path, legacy aliases) is in it and nothing
 * else is, each operation's security and error codes follow from the route (key, scope, rate
 * limit, body) plus the spec's route-specific codes, and `GET /v1/openapi.json` serves it
 * publicly, cacheable, with nothing secret in it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALL_ROUTES, GROUPS } from '../../functions/src/app/groups';
import { buildOpenApiDocument, openApiPath } from '../../functions/src/app/openapi/document';
import { OPENAPI_FILE } from '../../functions/src/app/openapi/file';
import { routeErrorCodes, routeKey, SPEC_ROUTE_ERRORS } from '../../functions/src/app/openapi/routeErrors';
import { ROUTE_NOTES } from '../../functions/src/app/openapi/routeNotes';
import { toOpenApiSchema } from '../../functions/src/app/openapi/schemas';
import { openApiText } from '../../functions/src/app/openapi/write';
import { route } from '../../functions/src/http/route';
import { createTestService } from '../support/harness';
import { conformanceProblems, OPENAPI_DOCUMENT } from '../support/openapiConformance';

const root = join(__dirname, '..', '..');
const generated = openApiText();
const document = JSON.parse(generated);
const mounted = ALL_ROUTES.flatMap((r) => [r.path, ...(r.aliases ?? [])].map((path) => `${r.method.toLowerCase()} ${openApiPath(path)}`)).sort();

describe('the committed and built copies', () => {
  it('docs/openapi.json is the document the route table generates (run `npm run openapi` after changing a route)', () => {
    expect(readFileSync(join(root, 'docs', 'openapi.json'), 'utf8')).toBe(generated);
  });

  it('the built copy the platform group serves is the same document', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(generated);
  });

  it('is deterministic: the same routes give the same bytes', () => {
    expect(JSON.stringify(buildOpenApiDocument(GROUPS, '0.1.0'))).toBe(JSON.stringify(buildOpenApiDocument(GROUPS, '0.1.0')));
  });
});

describe('coverage', () => {
  it('has every route the service mounts (method and path, aliases included) and no other', () => {
    const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`))
      .sort();
    expect(documented).toEqual(mounted);
    expect(mounted.length).toBeGreaterThan(60);
  });

  it('tags each operation with its endpoint group, and describes every group', () => {
    for (const [group, routes] of Object.entries(GROUPS)) {
      for (const r of routes) expect([routeKey(r), document.paths[openApiPath(r.path)][r.method.toLowerCase()].tags]).toEqual([routeKey(r), [group]]);
    }
    expect(document.tags.map((t: { name: string }) => t.name)).toEqual(Object.keys(GROUPS));
    for (const tag of document.tags) expect(tag.description.length).toBeGreaterThan(10);
  });

  it('has a summary for every mounted route, and no summary or spec error entry for a route that does not exist', () => {
    const keys = ALL_ROUTES.map(routeKey).sort();
    expect(Object.keys(ROUTE_NOTES).sort()).toEqual(keys);
    for (const key of Object.keys(SPEC_ROUTE_ERRORS)) expect(keys).toContain(key);
  });

  it('gives every operation a unique operationId', () => {
    const ids = Object.values(document.paths as Record<string, Record<string, { operationId: string }>>).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('documents the frozen paths of the spec with their parameters', () => {
    const grant = document.paths['/v1/server/customers/{customerId}/grant'].post;
    expect(grant.parameters).toEqual([expect.objectContaining({ name: 'customerId', in: 'path', required: true })]);
    expect(grant.requestBody.content['application/json'].schema.required).toEqual(expect.arrayContaining(['entitlementKey', 'duration', 'reason']));
    const list = document.paths['/v1/dashboard-api/projects/{projectId}/{env}/customer-list'].get;
    expect(list.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual(expect.arrayContaining(['path:projectId', 'path:env', 'query:limit', 'query:cursor']));
    expect(document.paths['/v1/identity/alias'].post).toMatchObject({ deprecated: true });
    expect(document.paths['/v1/events'].post.responses['202']).toBeDefined();
  });
});

describe('security and errors follow from each route', () => {
  const op = (method: string, path: string) => document.paths[path][method];

  it('declares the key types in both headers, and the operator token', () => {
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['operatorToken', 'publishableBearer', 'publishableHeader', 'secretBearer', 'secretHeader']);
    expect(document.components.securitySchemes.secretHeader).toMatchObject({ type: 'apiKey', in: 'header', name: 'Service-Api-Key' });
    expect(document.components.securitySchemes.secretBearer.description).toContain('reporting:identity');
  });

  it('public routes need nothing; secret routes admit only secret keys; publishable-only routes only publishable keys', () => {
    expect(op('get', '/v1/healthz').security).toEqual([]);
    expect(op('get', '/v1/openapi.json').security).toEqual([]);
    expect(op('post', '/v1/webhooks/stripe/{projectId}').security).toEqual([]);
    expect(op('post', '/v1/migration/users').security).toEqual([{ secretBearer: [] }, { secretHeader: [] }]);
    expect(op('get', '/v1/config').security).toEqual([{ publishableBearer: [] }, { publishableHeader: [] }]);
    expect(op('post', '/v1/identify').security).toHaveLength(4);
  });

  it('lists a report route’s scope and answers 403 insufficient_scope', () => {
    const revenue = op('get', '/v1/reports/revenue');
    expect(revenue.security).toEqual([{ secretBearer: ['revenue:read'] }, { secretHeader: ['revenue:read'] }]);
    expect(revenue.responses['403'].content['application/json'].schema.allOf[1].properties.error.properties.code.enum).toEqual(['insufficient_scope']);
    expect(op('get', '/v1/reports/customers').security[0]).toEqual({ secretBearer: ['reporting:identity'] });
  });

  it('gives operator routes inside a project the operator token with the role needed', () => {
    expect(op('get', '/v1/dashboard-api/projects/{projectId}/{env}/overview').security).toEqual([{ operatorToken: ['viewer'] }]);
    expect(op('post', '/v1/dashboard-api/projects/{projectId}/{env}/customers/{customerId}/grant').security).toEqual([{ operatorToken: ['admin'] }]);
    expect(op('get', '/v1/dashboard-api/session').security).toEqual([{ operatorToken: [] }]);
  });

  it('derives error codes from key, lock, scope, rate limit and body, plus the spec’s own', () => {
    const codes = (method: string, path: string) => Object.fromEntries([...routeErrorCodes(ALL_ROUTES.find((r) => r.method === method && r.path === path)!)]);
    expect(codes('GET', '/v1/healthz')).toEqual({ 400: ['invalid_param_value'], 500: ['internal_error'] });
    expect(codes('GET', '/v1/entitlements')).toEqual({
      400: ['missing_customer', 'invalid_customer', 'invalid_param_value'],
      401: ['missing_api_key', 'invalid_api_key', 'key_revoked'],
      403: ['origin_not_allowed', 'bundle_id_not_allowed', 'package_name_not_allowed'],
      429: ['rate_limited'],
      500: ['internal_error'],
    });
    expect(codes('POST', '/v1/identify')[401]).toContain('identity_token_invalid');
    expect(codes('POST', '/v1/events')).toMatchObject({ 403: expect.arrayContaining(['env_mismatch']), 426: ['sdk_version_unsupported'] });
    expect(codes('POST', '/v1/releases/sourcemaps')[400]).toEqual(['missing_required_param', 'invalid_param_value', 'invalid_release']);
    expect(codes('GET', '/v1/dashboard-api/session')).toEqual({ 400: ['invalid_param_value'], 401: ['operator_unauthenticated'], 500: ['internal_error'] });
    expect(codes('POST', '/v1/webhooks/apple/:projectId')).toMatchObject({ 401: ['invalid_api_key'], 429: ['rate_limited'] });
  });

  it('reads the codes a body schema annotates (x-code) without a table entry', () => {
    const synthetic = route({
      method: 'POST',
      path: '/v1/example',
      key: 'secret',
      body: { type: 'object', required: ['a'], properties: { a: { type: 'string', 'x-code': { pattern: 'invalid_release' } } }, 'x-code': { required: 'missing_customer' } } as never,
      handler: async () => ({ body: {} }),
    });
    expect(routeErrorCodes(synthetic).get(400)).toEqual(['missing_customer', 'invalid_param_value', 'invalid_release']);
    expect(routeErrorCodes(synthetic).get(403)).toEqual(['env_mismatch']);
  });
});

describe('schemas', () => {
  it('turns Ajv’s nullable into a JSON Schema 2020-12 type list, at any depth', () => {
    expect(toOpenApiSchema({ type: 'object', properties: { a: { type: 'string', nullable: true }, b: { type: 'array', items: { type: 'integer', nullable: true, enum: [1, 2] } } } })).toEqual({
      type: 'object',
      properties: { a: { type: ['string', 'null'] }, b: { type: 'array', items: { type: ['integer', 'null'], enum: [1, 2, null] } } },
    });
  });

  it('keeps boolean subschemas’ meaning', () => {
    expect(toOpenApiSchema({ type: 'object', properties: { any: true, none: false } })).toEqual({ type: 'object', properties: { any: {}, none: { not: {} } } });
  });

  it('keeps no `nullable` keyword anywhere in the document (it is not OpenAPI 3.1)', () => {
    expect(generated).not.toContain('"nullable"');
  });
});

describe('GET /v1/openapi.json', () => {
  const service = createTestService();

  it('serves the document publicly, cacheable, as the committed copy', async () => {
    const res = await service.request().get('/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('application/json');
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.body).toEqual(OPENAPI_DOCUMENT);
    expect((await service.request().get('/openapi.json')).body.openapi).toBe('3.1.0');
  });

  it('cannot be written to or used to read anything else: other methods and paths are unknown routes', async () => {
    for (const res of [await service.request().post('/v1/openapi.json').send({}), await service.request().get('/v1/openapi.json/../../package.json'), await service.request().get('/v1/openapi.yaml')]) {
      expect([res.status, res.body.error?.code]).toEqual([400, 'missing_required_param']);
    }
  });

  it('carries no key, secret or setting value: only key formats', () => {
    expect(generated).not.toMatch(/cd_(pub|sk|wk)_(test|live)_[A-Za-z0-9]{8,}/);
    expect(generated).not.toMatch(/whsec_|sk_(test|live)_|BEGIN [A-Z ]*PRIVATE KEY/);
    for (const [name, value] of Object.entries(process.env)) {
      if (name.startsWith('TESSERA_') && value && value.length >= 8) expect([name, generated.includes(value)]).toEqual([name, false]);
    }
  });
});

describe('the check that live answers are as documented (test/support/openapiConformance.ts)', () => {
  const envelope = (code: string, type = 'invalid_request_error') => ({ error: { type, code, message: 'm', request_id: 'req_1' } });

  it('passes a documented status and body, on either path form', () => {
    expect(conformanceProblems('GET', '/v1/entitlements?userId=u', 400, envelope('missing_customer'))).toEqual([]);
    expect(conformanceProblems('POST', '/server/customers/cdcust_1/grant', 401, envelope('key_revoked', 'authentication_error'))).toEqual([]);
  });

  it('catches an undocumented route, status or code, and a malformed envelope', () => {
    expect(conformanceProblems('GET', '/v1/nowhere', 200, {})).toEqual([expect.stringContaining('not in the document')]);
    expect(conformanceProblems('GET', '/v1/healthz', 401, envelope('missing_api_key', 'authentication_error'))).toEqual([expect.stringContaining('status 401 is not documented')]);
    expect(conformanceProblems('GET', '/v1/entitlements', 400, envelope('invalid_release')).join()).toContain('/error/code');
    expect(conformanceProblems('GET', '/v1/entitlements', 400, { error: { type: 'invalid_request_error', code: 'missing_customer', message: 'm' } }).join()).toContain('request_id');
  });
});
