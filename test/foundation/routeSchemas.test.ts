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

/** Every answer is described: the tests' pipeline checks each reply against it, and the OpenAPI document shows it. */
it('every route declares the schema of its answer', () => {
  const undescribed = ALL_ROUTES.filter((route) => route.response === undefined).map((route) => `${route.method} ${route.path}`);
  expect(undescribed).toEqual([]);
});
