import Ajv, { type ErrorObject, type Schema } from 'ajv';
import addFormats from 'ajv-formats';
import { ApiError } from './errors';

/**
 * One Ajv instance for the whole process; schemas are compiled once, at module load of the
 * route that declares them. Failures become `400 invalid_param_value` naming the field.
 */
const ajv = new Ajv({ allErrors: false, strict: false, coerceTypes: false, useDefaults: false });
addFormats(ajv);

/** `at`: JSON pointer of `value` inside the body (e.g. `/events/3`), so messages name the full field. */
export type Validator<T> = (value: unknown, at?: string) => T;

export function compileSchema<T>(schema: Schema): Validator<T> {
  const validate = ajv.compile(schema);
  return (value: unknown, at = ''): T => {
    if (validate(value)) return value as T;
    throw new ApiError('invalid_param_value', describe(validate.errors?.[0], at));
  };
}

/** `/events/3/name` → `events[3].name`. */
export function fieldPath(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  return parts.reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}

function describe(error: ErrorObject | undefined, at: string): string {
  if (!error) return 'The request body is invalid.';
  const instancePath = at + error.instancePath;
  if (error.keyword === 'required') {
    return `Missing required field \`${fieldPath(instancePath, String(error.params.missingProperty))}\`.`;
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
