/**
 * Every route's body and query schema is a valid JSON Schema that Ajv compiles. The pipeline
 * compiles schemas at first use without the meta-schema check (cold start), so this is where
 * a malformed schema fails: in CI, not on a route's first request in production.
 */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { ALL_ROUTES } from '../../functions/src/app/groups';
import { identifyBodySchema } from '../../functions/src/identity/http/identify';
import { AJV_OPTIONS, addCustomKeywords } from '../../functions/src/http/validation';

const schemas = [
  ...ALL_ROUTES.flatMap((route) => [
    ...(route.body ? [[`${route.method} ${route.path} body`, route.body] as const] : []),
    ...(route.query ? [[`${route.method} ${route.path} query`, route.query] as const] : []),
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
