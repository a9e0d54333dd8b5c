import { ERROR_CODES, type ErrorCode, type ErrorType } from '../errors/codes';
import { DomainError, isOperatorKind } from '../errors/domain';
import { CONTENTION_RETRY_AFTER_SECONDS, isStoreContention } from '../store/contention';

/**
 * An error as the API answers it: a code of the closed set (errors/codes.ts, which decides its
 * type and status), the public message, and what the envelope and headers add. The pipeline and
 * route files raise it directly; everything below the HTTP layer raises a `DomainError`, which
 * `asApiError` maps.
 */
export interface ApiErrorOptions {
  /** Detail for logs only; never sent to the client. */
  internal?: string;
  /** Extra envelope fields (only `426` carries any: `minVersion`, `surface`). */
  extra?: Record<string, unknown>;
  /** Extra response headers (`Retry-After` on 429, for example). */
  headers?: Record<string, string>;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly internal?: string;
  readonly extra?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.internal = options.internal;
    this.extra = options.extra;
    this.headers = options.headers;
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  get type(): ErrorType {
    return ERROR_CODES[this.code].type;
  }
}

export interface ErrorBody {
  error: { type: ErrorType; code: ErrorCode; message: string; request_id: string } & Record<string, unknown>;
}

/**
 * Any thrown value becomes an ApiError, here and nowhere else: a `DomainError` keeps its code
 * and message (an operator kind, which the spec's closed set has no 404 or 409 for, is the
 * caller's `400 invalid_param_value`, its kind logged); the store refusing work under contention
 * (after the transaction's retries) is `429 rate_limited`, never a 500 — the request was fine and
 * nothing was written; other unknown failures are `500 internal_error` with no detail.
 */
export function asApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof DomainError) return fromDomainError(err);
  if (isStoreContention(err)) return fromDomainError(storeBusy(err));
  return new ApiError('internal_error', 'An internal error occurred. Retry later or contact support with the request id.', {
    internal: describe(err),
  });
}

function fromDomainError(err: DomainError): ApiError {
  if (isOperatorKind(err.code)) {
    return new ApiError('invalid_param_value', err.message, { internal: `domain ${err.code}: ${err.internal ?? err.message}` });
  }
  return new ApiError(err.code, err.message, {
    internal: err.internal,
    extra: err.floor ? { minVersion: err.floor.minVersion, surface: err.floor.surface } : undefined,
    headers: err.retry
      ? { 'Retry-After': String(Math.max(1, Math.ceil(err.retry.retryAfterMs / 1000))), 'X-Service-Sample-Rate': String(err.retry.sampleRate) }
      : undefined,
  });
}

/** Work the store refused under contention (see store/contention.ts). */
function storeBusy(err: unknown): DomainError<'rate_limited'> {
  return new DomainError('rate_limited', 'Too many concurrent changes to the same records; retry after the Retry-After interval.', {
    internal: `store contention: ${describe(err)}`,
    // Nothing to sample away: the client should only wait, so the sample-rate hint is 1.
    retry: { retryAfterMs: CONTENTION_RETRY_AFTER_SECONDS * 1000, sampleRate: 1 },
  });
}

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

export function toErrorBody(err: ApiError, requestId: string): ErrorBody {
  return {
    error: { ...(err.extra ?? {}), type: err.type, code: err.code, message: err.message, request_id: requestId },
  };
}

/** The error that route files raise most (domain code raises `invalidParamValue`, errors/domain.ts). */
export const invalidParam = (message: string): ApiError => new ApiError('invalid_param_value', message);
