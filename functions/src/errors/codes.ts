/**
 * The closed set of API error codes (the spec's "Errors" table): every error a client can see is
 * one of these, and its type and HTTP status are decided here, once. Kernel: the HTTP layer
 * reads it to build the envelope; domain code names a code when it raises a `DomainError`.
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
