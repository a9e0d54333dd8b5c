/**
 * Every route's body, query, path-parameter and response schema is a valid JSON Schema that Ajv
 * compiles. The pipeline compiles schemas at first use without the meta-schema check (cold
 * start), so this is where a malformed schema fails: in CI, not on a route's first request in
 * production. Every route with path parameters declares their schema (so none is read
 * unchecked), and every route declares its answer's schema (so the tests check every reply).
 */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { ALL_ROUTES } from '../../functions/src/app/groups';
import { identifyBodySchema } from '../../functions/src/wire/identity';
import { isResponseMap, type JsonSchema } from '../../functions/src/wire/schema';
import { AJV_OPTIONS, addCustomKeywords } from '../../functions/src/http/validation';

const schemas = [
  ...ALL_ROUTES.flatMap((route) => [
    ...(route.body ? [[`${route.method} ${route.path} body`, route.body] as const] : []),
    ...(route.query ? [[`${route.method} ${route.path} query`, route.query] as const] : []),
    ...(route.params ? [[`${route.method} ${route.path} params`, route.params] as const] : []),
    ...(route.response === undefined
      ? []
      : isResponseMap(route.response)
        ? Object.entries(route.response).map(([status, schema]) => [`${route.method} ${route.path} response ${status}`, schema as JsonSchema] as const)
        : [[`${route.method} ${route.path} response`, route.response] as const]),
  ]),
  ['bulk alias row (identify body)', identifyBodySchema] as const,
];

const strictAjv = new Ajv({ ...AJV_OPTIONS, validateSchema: true });
addFormats(strictAjv);
addCustomKeywords(strictAjv);

it('finds the routes’ schemas', () => {
  expect(schemas.length).toBeGreaterThan(10);
});

it.each(schemas)('%s is valid against the meta-schema and compiles', (_name, schema) => {
  expect(strictAjv.validateSchema(schema)).toBe(true);
  expect(strictAjv.errors ?? null).toBeNull();
  expect(() => strictAjv.compile(schema)).not.toThrow();
});

it('every route with path parameters has their schema, naming each of them', () => {
  const unchecked = ALL_ROUTES.filter((route) => route.path.includes('/:'))
    .flatMap((route) => {
      const names = [...route.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]).filter((name) => !(route.key === 'operator' && (name === 'projectId' || name === 'env')));
      const declared = Object.keys(((route.params ?? {}) as { properties?: object }).properties ?? {});
      return names.filter((name) => !declared.includes(name)).map((name) => `${route.method} ${route.path} :${name}`);
    });
  expect(unchecked).toEqual([]);
});

/**
 * Routes whose answer has no schema yet: the dashboard's changes that answer what a service
 * returns (a key's plaintext once, an endpoint and its secret once, an erasure ticket, …).
 * The list only shrinks; a new route without a response schema fails here.
 */
const ANSWER_NOT_DESCRIBED = [
  'POST /v1/dashboard-api/projects/:projectId/:env/apps',
  'POST /v1/dashboard-api/projects/:projectId/:env/apps/:appId/keys',
  'POST /v1/dashboard-api/projects/:projectId/:env/keys/:keyId/rotate',
  'POST /v1/dashboard-api/projects/:projectId/:env/keys/:keyId/revoke',
  'POST /v1/dashboard-api/projects/:projectId/:env/conflicts/:conflictId/resolve',
  'POST /v1/dashboard-api/projects/:projectId/:env/customers/:customerId/erase',
  'POST /v1/dashboard-api/projects/:projectId/:env/webhooks',
  'POST /v1/dashboard-api/projects/:projectId/:env/webhooks/:endpointId/update',
  'DELETE /v1/dashboard-api/projects/:projectId/:env/webhooks/:endpointId',
  'POST /v1/dashboard-api/projects/:projectId/:env/webhooks/:endpointId/disable',
  'POST /v1/dashboard-api/projects/:projectId/:env/webhooks/:endpointId/enable',
  'POST /v1/dashboard-api/projects/:projectId/:env/webhooks/:endpointId/rotate-secret',
].sort();

it('every route declares the schema of its answer (but the listed dashboard changes)', () => {
  const undescribed = ALL_ROUTES.filter((route) => route.response === undefined).map((route) => `${route.method} ${route.path}`).sort();
  expect(undescribed).toEqual(ANSWER_NOT_DESCRIBED);
});
