import type Ajv from 'ajv';
import type { ErrorObject, Schema, ValidateFunction } from 'ajv';
import type { ErrorCode } from '../errors/codes';
import { serialisedJson } from '../wire/serialisedJson';
import { ApiError } from './errors';

/**
 * One Ajv instance for the whole process. Ajv itself and each schema are compiled at first
 * use, not at module load: a cold instance pays only for the schemas its requests need (Ajv
 * and its formats are ~20 ms of every group's cold start, each schema a few ms more).
 * Schemas are not checked against the meta-schema when compiled: test/foundation/routeSchemas
 * checks every route's schema once, in CI. Failures become `400 invalid_param_value` naming the field.
 * `verbose` keeps the failing subschema and value, so a schema can word its own error through
 * annotations on the subschema that fails (Ajv ignores them):
 *
 * - `x-invalid`: the reason after "Invalid value for `field`: ", for any keyword failing there,
 *   or per keyword (`{ maxProperties: 'at most 32 keys' }`);
 * - `x-missing-when-empty`: `null` or `""` is reported as a missing required field (the spec
 *   treats them as absent); its keyword, for the two maps below, is `empty`;
 * - `x-missing`: why the field is required, appended to "Missing required field `field`";
 * - `x-message`: whole messages per keyword, for a rule the spec words its own way;
 * - `x-code`: the error code when it is not `invalid_param_value` (e.g. `invalid_customer`),
 *   for any keyword or per keyword.
 *
 * In the two maps, a missing property may be worded apart as `required:<name>`.
 */
let shared: Ajv | undefined;

export const AJV_OPTIONS = { allErrors: false, strict: false, coerceTypes: false, useDefaults: false, verbose: true } as const;

function sharedAjv(): Ajv {
  if (shared) return shared;
  // Required here, not imported at the top, so that loading a route costs no Ajv.
  const { default: AjvClass } = require('ajv') as typeof import('ajv');
  const { default: addFormats } = require('ajv-formats') as typeof import('ajv-formats');
  const ajv = new AjvClass({ ...AJV_OPTIONS, validateSchema: false });
  addFormats(ajv);
  addCustomKeywords(ajv);
  shared = ajv;
  return ajv;
}

/**
 * The keywords of our own; the schema test registers them too. `x-maxJsonBytes`: the value's
 * `JSON.stringify` is at most this many UTF-8 bytes (an event's `properties`); the text is kept
 * (`serialisedJson`) so that the handler does not serialise twice.
 */
export function addCustomKeywords(ajv: Ajv): void {
  ajv.addKeyword({
    keyword: 'x-maxJsonBytes',
    schemaType: 'number',
    errors: false,
    validate: (limit: number, data: unknown) => {
      if (typeof data !== 'object' || data === null) return true;
      return Buffer.byteLength(serialisedJson(data), 'utf8') <= limit;
    },
  });
}

/** `at`: JSON pointer of `value` inside the body (e.g. `/events/3`), so messages name the full field. */
export type Validator<T> = (value: unknown, at?: string) => T;

export function compileSchema<T>(schema: Schema): Validator<T> {
  let validate: ValidateFunction | undefined;
  return (value: unknown, at = ''): T => {
    validate ??= sharedAjv().compile(schema);
    if (validate(value)) return value as T;
    throw failure(validate.errors?.[0], at);
  };
}

/** `/events/3/name` → `events[3].name`. */
export function fieldPath(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  return parts.reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}

interface Annotations {
  'x-invalid'?: string | Record<string, string>;
  'x-missing-when-empty'?: boolean;
  'x-missing'?: string;
  'x-message'?: Record<string, string>;
  'x-code'?: ErrorCode | Record<string, ErrorCode>;
}

const byKeyword = <T>(annotation: T | Record<string, T> | undefined, keyword: string): T | undefined =>
  typeof annotation === 'object' && annotation !== null ? (annotation as Record<string, T>)[keyword] : annotation;

function failure(error: ErrorObject | undefined, at: string): ApiError {
  if (!error) return new ApiError('invalid_param_value', 'The request body is invalid.');
  const annotations = (error.parentSchema ?? {}) as Annotations;
  const empty = annotations['x-missing-when-empty'] === true && (error.data === null || error.data === '');
  // A missing property is `required:<name>` when the schema words that one apart, else `required`.
  const missing = error.keyword === 'required' ? `required:${String(error.params.missingProperty)}` : null;
  const keyword = empty ? 'empty' : missing && (byKeyword(annotations['x-code'], missing) || annotations['x-message']?.[missing]) ? missing : error.keyword;
  const code = byKeyword(annotations['x-code'], keyword) ?? 'invalid_param_value';
  return new ApiError(code, annotations['x-message']?.[keyword] ?? describe(error, at, annotations, empty));
}

function describe(error: ErrorObject, at: string, annotations: Annotations, empty: boolean): string {
  const instancePath = at + error.instancePath;
  const why = annotations['x-missing'] ? `: ${annotations['x-missing']}` : '';
  if (empty) return `Missing required field \`${fieldPath(instancePath)}\`${why}.`;
  const reason = byKeyword(annotations['x-invalid'], error.keyword);
  if (reason && error.keyword !== 'required' && error.keyword !== 'additionalProperties') {
    return `Invalid value for \`${fieldPath(instancePath) || 'body'}\`: ${reason}.`;
  }
  if (error.keyword === 'required') {
    return `Missing required field \`${fieldPath(instancePath, String(error.params.missingProperty))}\`${why}.`;
  }
  if (error.keyword === 'additionalProperties') {
    return `Unknown field \`${fieldPath(instancePath, String(error.params.additionalProperty))}\`.`;
  }
  const field = fieldPath(instancePath) || 'body';
  if (error.keyword === 'enum') {
    return `Invalid value for \`${field}\`: must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}.`;
  }
  return `Invalid value for \`${field}\`: ${error.message ?? 'invalid'}.`;
}
