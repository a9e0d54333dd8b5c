import { DomainError } from '../errors/domain';
import { CONTENTION_RETRY_AFTER_SECONDS, isStoreContention } from '../store/contention';

/**
 * The closed set of API errors. Every error a client can see is one of these codes; its
 * type and HTTP status are decided here, once. The envelope is built in `toErrorBody`.
 */
export const ERROR_CODES = {
  missing_api_key: { type: 'authentication_error', status: 401 },
  invalid_api_key: { type: 'authentication_error', status: 401 },
  key_revoked: { type: 'authentication_error', status: 401 },
  identity_token_invalid: { type: 'authentication_error', status: 401 },
  /** The dashboard's operator sign-in is missing, expired or invalid (dashboard/authenticator.ts). */
  operator_unauthenticated: { type: 'authentication_error', status: 401 },
  origin_not_allowed: { type: 'permission_error', status: 403 },
  bundle_id_not_allowed: { type: 'permission_error', status: 403 },
  package_name_not_allowed: { type: 'permission_error', status: 403 },
  env_mismatch: { type: 'permission_error', status: 403 },
  insufficient_scope: { type: 'permission_error', status: 403 },
  missing_customer: { type: 'invalid_request_error', status: 400 },
  invalid_customer: { type: 'invalid_request_error', status: 400 },
  missing_required_param: { type: 'invalid_request_error', status: 400 },
  invalid_param_value: { type: 'invalid_request_error', status: 400 },
  invalid_release: { type: 'invalid_request_error', status: 400 },
  release_exists: { type: 'invalid_request_error', status: 400 },
  release_not_found: { type: 'invalid_request_error', status: 400 },
  release_finalized: { type: 'invalid_request_error', status: 400 },
  invalid_sourcemap: { type: 'invalid_request_error', status: 400 },
  sourcemap_too_large: { type: 'invalid_request_error', status: 400 },
  missing_runtime_url: { type: 'invalid_request_error', status: 400 },
  invalid_runtime_url: { type: 'invalid_request_error', status: 400 },
  missing_bundle_file: { type: 'invalid_request_error', status: 400 },
  missing_sourcemap: { type: 'invalid_request_error', status: 400 },
  idempotency_key_in_use: { type: 'invalid_request_error', status: 400 },
  rate_limited: { type: 'rate_limit_error', status: 429 },
  sdk_version_unsupported: { type: 'version_error', status: 426 },
  internal_error: { type: 'internal_error', status: 500 },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;
export type ErrorType = (typeof ERROR_CODES)[ErrorCode]['type'];

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
 * Any thrown value becomes an ApiError: the store refusing work under contention (after the
 * transaction's retries) is `429 rate_limited` with `Retry-After`, never a 500 — the request
 * was fine and nothing was written; other unknown failures are `500 internal_error` with no detail.
 */
export function asApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  // The spec's closed set has no 404 or 409: a domain refusal is the caller's 400, its code logged.
  if (err instanceof DomainError) return new ApiError('invalid_param_value', err.message, { internal: `domain ${err.code}: ${err.message}` });
  if (isStoreContention(err)) return storeBusy(err);
  return new ApiError('internal_error', 'An internal error occurred. Retry later or contact support with the request id.', {
    internal: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
  });
}

/** `429 rate_limited` for work the store refused under contention (see store/contention.ts). */
function storeBusy(err: unknown): ApiError {
  return new ApiError('rate_limited', 'Too many concurrent changes to the same records; retry after the Retry-After interval.', {
    internal: `store contention: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`,
    // Nothing to sample away: the client should only wait, so the sample-rate hint is 1.
    headers: { 'Retry-After': String(CONTENTION_RETRY_AFTER_SECONDS), 'X-Service-Sample-Rate': '1' },
  });
}

export function toErrorBody(err: ApiError, requestId: string): ErrorBody {
  return {
    error: { ...(err.extra ?? {}), type: err.type, code: err.code, message: err.message, request_id: requestId },
  };
}

/** Shorthand for the error that most handlers raise. */
export const invalidParam = (message: string): ApiError => new ApiError('invalid_param_value', message);
