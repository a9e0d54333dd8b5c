/**
 * Guarantees of route-schema validation (http/validation.ts): a failure is a 400 naming the
 * field, and a schema's annotations word the spec's own messages and codes: a reason per keyword,
 * null or "" as a missing field, a missing property worded apart, another code, and a bound on a
 * value's serialised size.
 */
import { ApiError } from '../../functions/src/http/errors';
import { compileSchema } from '../../functions/src/http/validation';

function failure(validate: (value: unknown) => unknown, value: unknown): { code: string; message: string } {
  try {
    validate(value);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return { code: (err as ApiError).code, message: (err as ApiError).message };
  }
  throw new Error('expected a validation failure');
}

const validate = compileSchema({
  type: 'object',
  required: ['id', 'rows'],
  properties: {
    id: { type: 'string', pattern: '^[a-z]{1,4}$', 'x-missing-when-empty': true, 'x-invalid': '1–4 lowercase letters' },
    rows: { type: 'array', minItems: 1, items: { type: 'integer' }, 'x-code': { minItems: 'missing_required_param' }, 'x-message': { minItems: '`rows` needs a row.' } },
    customer: { type: 'string', pattern: '^cdcust_', 'x-code': 'invalid_customer' },
    props: { type: 'object', 'x-maxJsonBytes': 16, 'x-invalid': { 'x-maxJsonBytes': 'at most 16 bytes serialised' } },
  },
  'x-code': { 'required:rows': 'missing_required_param' },
  'x-message': { 'required:rows': '`rows` is required.' },
});
const ok = { id: 'abc', rows: [1] };

it('admits what the schema admits', () => {
  expect(validate(ok)).toEqual(ok);
  expect(validate({ ...ok, props: { a: 'b' } })).toEqual({ ...ok, props: { a: 'b' } });
});

it('names the field, with the schema’s reason', () => {
  expect(failure(validate, { ...ok, id: 'ABC' })).toEqual({ code: 'invalid_param_value', message: 'Invalid value for `id`: 1–4 lowercase letters.' });
  expect(failure(validate, { ...ok, rows: [1, 'x'] })).toEqual({ code: 'invalid_param_value', message: 'Invalid value for `rows[1]`: must be integer.' });
});

it('reports null or "" as a missing field where the schema says so', () => {
  expect(failure(validate, { ...ok, id: null }).message).toBe('Missing required field `id`.');
  expect(failure(validate, { ...ok, id: '' }).message).toBe('Missing required field `id`.');
  expect(failure(validate, { rows: [1] }).message).toBe('Missing required field `id`.');
});

it('words a missing property and a keyword apart, with their own codes', () => {
  expect(failure(validate, { id: 'abc' })).toEqual({ code: 'missing_required_param', message: '`rows` is required.' });
  expect(failure(validate, { ...ok, rows: [] })).toEqual({ code: 'missing_required_param', message: '`rows` needs a row.' });
  expect(failure(validate, { ...ok, customer: 'cust_1' }).code).toBe('invalid_customer');
});

it('bounds a value’s serialised size', () => {
  expect(failure(validate, { ...ok, props: { a: 'x'.repeat(20) } })).toEqual({ code: 'invalid_param_value', message: 'Invalid value for `props`: at most 16 bytes serialised.' });
});
