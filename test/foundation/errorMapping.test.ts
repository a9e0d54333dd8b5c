/**
 * The one mapping of refusals to what each surface shows (issue 21, "Errors"): every code of the
 * closed set, raised by domain code as a `DomainError`, reaches the API with its status, type,
 * message and extras (the 426's `minVersion`/`surface`, `Retry-After` on 429) and nothing of its
 * internal detail; operator kinds are the caller's `400 invalid_param_value`; store contention is
 * a `429`; anything else a `500` without detail. The CLI maps the same refusals to its
 * `OperatorError`.
 */
import { operatorErrorOf } from '../../functions/src/cli/operatorError';
import { ERROR_CODES, type ErrorCode } from '../../functions/src/errors/codes';
import { DomainError, OPERATOR_KINDS } from '../../functions/src/errors/domain';
import { asApiError, toErrorBody } from '../../functions/src/http/errors';
import { rateLimited } from '../../functions/src/ratelimit/refusal';
import { sdkVersionUnsupported } from '../../functions/src/events/sdkFloor';

/** The spec's error table: type → HTTP status. */
const SPEC_STATUS = {
  authentication_error: 401,
  permission_error: 403,
  invalid_request_error: 400,
  rate_limit_error: 429,
  version_error: 426,
  internal_error: 500,
} as const;

const CODES = Object.keys(ERROR_CODES) as ErrorCode[];
const SECRET_DETAIL = 'upstream said: token kid=abc123 rejected';

/** A refusal of `code` as domain code raises it, with the detail its code requires. */
function refusal(code: ErrorCode, message: string): DomainError {
  if (code === 'rate_limited') return new DomainError(code, message, { internal: SECRET_DETAIL, retry: { retryAfterMs: 2500, sampleRate: 0.25 } });
  if (code === 'sdk_version_unsupported') return new DomainError(code, message, { internal: SECRET_DETAIL, floor: { minVersion: '2.0.0', surface: 'web' } });
  return new DomainError(code as Exclude<ErrorCode, 'rate_limited' | 'sdk_version_unsupported'>, message, { internal: SECRET_DETAIL });
}

describe('DomainError → API envelope (http/errors.ts asApiError)', () => {
  it('covers every type of the spec table with its status', () => {
    for (const code of CODES) expect(ERROR_CODES[code].status).toBe(SPEC_STATUS[ERROR_CODES[code].type]);
  });

  it.each(CODES)('%s keeps its code, message, type and status; the internal detail stays in the logs', (code) => {
    const message = `Refused: ${code}.`;
    const error = asApiError(refusal(code, message));
    expect(error.code).toBe(code);
    expect(error.status).toBe(ERROR_CODES[code].status);
    expect(error.type).toBe(ERROR_CODES[code].type);
    expect(error.internal).toBe(SECRET_DETAIL);

    const body = toErrorBody(error, 'req_1');
    const extras = code === 'sdk_version_unsupported' ? { minVersion: '2.0.0', surface: 'web' } : {};
    expect(body).toEqual({ error: { type: ERROR_CODES[code].type, code, message, request_id: 'req_1', ...extras } });
    expect(JSON.stringify(body)).not.toContain('kid=abc123');
    if (code === 'rate_limited') expect(error.headers).toEqual({ 'Retry-After': '3', 'X-Service-Sample-Rate': '0.25' });
    else expect(error.headers).toBeUndefined();
  });

  it.each(OPERATOR_KINDS)('operator kind %s is the caller’s 400 invalid_param_value, its kind logged', (kind) => {
    const error = asApiError(new DomainError(kind, `No project proj_x (${kind}).`));
    expect(error.status).toBe(400);
    expect(toErrorBody(error, 'req_2')).toEqual({
      error: { type: 'invalid_request_error', code: 'invalid_param_value', message: `No project proj_x (${kind}).`, request_id: 'req_2' },
    });
    expect(error.internal).toContain(`domain ${kind}`);
  });

  it('rate_limited: Retry-After rounds up to whole seconds and is at least 1', () => {
    expect(asApiError(rateLimited({ retryAfterMs: 1, sampleRate: 0 }, 'events')).headers).toEqual({ 'Retry-After': '1', 'X-Service-Sample-Rate': '0' });
    expect(asApiError(rateLimited({ retryAfterMs: 0, sampleRate: 1 })).headers?.['Retry-After']).toBe('1');
    expect(asApiError(rateLimited({ retryAfterMs: 4001, sampleRate: 1 })).headers?.['Retry-After']).toBe('5');
    expect(rateLimited({ retryAfterMs: 10, sampleRate: 1 }, 'events').message).toBe('Rate limit exceeded for events; retry after the Retry-After interval.');
  });

  it('426 carries the floor the events endpoint names', () => {
    const error = asApiError(sdkVersionUnsupported({ surface: 'swift', minVersion: '1.6.0', version: '1.5.0' }));
    expect(error.status).toBe(426);
    expect(toErrorBody(error, 'req_3').error).toEqual({
      type: 'version_error',
      code: 'sdk_version_unsupported',
      message: 'SDK version 1.5.0 is below the supported floor 1.6.0 for swift; keep the events and upgrade the SDK.',
      request_id: 'req_3',
      minVersion: '1.6.0',
      surface: 'swift',
    });
  });

  it('store contention is 429 with Retry-After 1; anything else is a 500 with no detail', () => {
    const busy = asApiError(Object.assign(new Error('10 ABORTED: Transaction lock timeout'), { code: 10 }));
    expect([busy.status, busy.code]).toEqual([429, 'rate_limited']);
    expect(busy.headers).toEqual({ 'Retry-After': '1', 'X-Service-Sample-Rate': '1' });
    expect(busy.internal).toContain('store contention');

    const unknown = asApiError(new TypeError(`cannot read ${SECRET_DETAIL}`));
    expect([unknown.status, unknown.code]).toEqual([500, 'internal_error']);
    expect(JSON.stringify(toErrorBody(unknown, 'req_4'))).not.toContain('kid=abc123');
    expect(unknown.internal).toContain('TypeError');
  });
});

describe('DomainError → OperatorError (cli/operatorError.ts operatorErrorOf)', () => {
  it.each(OPERATOR_KINDS)('operator kind %s keeps its code', (kind) => {
    const error = operatorErrorOf(new DomainError(kind, 'No such key.'));
    expect([error.code, error.message]).toEqual([kind, 'No such key.']);
  });

  it.each(CODES)('API code %s: a request error is the operator’s invalid_argument, any other keeps its name', (code) => {
    const error = operatorErrorOf(refusal(code, 'Refused.'));
    expect(error.code).toBe(ERROR_CODES[code].type === 'invalid_request_error' ? 'invalid_argument' : code);
    expect(error.message).toBe('Refused.');
  });
});
