import { ERROR_CODES, type ErrorCode } from '../../errors/codes';
import type { CompiledRoute } from '../../http/route';
import { annotatedErrorCodes } from './schemas';

/**
 * The error codes a route documents, by HTTP status. Most follow from the route's own
 * properties and the pipeline every route runs (http/pipeline.ts):
 *
 * - every route: `400 invalid_param_value` (query and path text, domain refusals) and `500`;
 * - a JSON body: the codes its schema's `x-code` annotations name;
 * - an API key: `401 missing_api_key | invalid_api_key | key_revoked`; a publishable key may
 *   also meet the platform lock's `403`s; a body that declares another environment `403 env_mismatch`;
 * - a scope: `403 insufficient_scope`; an operator: `401 operator_unauthenticated`, and inside a
 *   project the role's `403 insufficient_scope`;
 * - a rate limit or a write (store contention is answered `429` too): `429 rate_limited`.
 *
 * The rest are the codes the spec names for one route (SPEC_ROUTE_ERRORS, keyed `METHOD path`);
 * a test holds every key of that table to a mounted route.
 */
export const SPEC_ROUTE_ERRORS: Record<string, readonly ErrorCode[]> = {
  'POST /v1/events': ['env_mismatch', 'sdk_version_unsupported'],
  'POST /v1/identify': ['identity_token_invalid', 'rate_limited'],
  'POST /v1/identity/forget': ['identity_token_invalid'],
  'GET /v1/entitlements': ['missing_customer', 'invalid_customer'],
  'POST /v1/purchases/sync': ['invalid_api_key', 'env_mismatch', 'idempotency_key_in_use'],
  'POST /v1/releases/sourcemaps': ['invalid_release', 'missing_required_param', 'env_mismatch'],
  'POST /v1/migration/users': ['missing_required_param'],
  'GET /v1/server/customers/:customerId/entitlements': ['invalid_customer'],
  'POST /v1/server/customers/:customerId/grant': ['invalid_customer'],
  'POST /v1/server/customers/:customerId/revoke': ['invalid_customer'],
  'POST /v1/server/customers/alias': ['missing_required_param'],
  // Rail notifications: a signature, token or chain that does not verify (rails/rejection.ts).
  'POST /v1/webhooks/stripe/:projectId': ['invalid_api_key'],
  'POST /v1/webhooks/apple/:projectId': ['invalid_api_key'],
  'POST /v1/webhooks/google/:projectId': ['invalid_api_key'],
};

export const routeKey = (route: Pick<CompiledRoute, 'method' | 'path'>): string => `${route.method} ${route.path}`;

const KEY_ERRORS: readonly ErrorCode[] = ['missing_api_key', 'invalid_api_key', 'key_revoked'];
const LOCK_ERRORS: readonly ErrorCode[] = ['origin_not_allowed', 'bundle_id_not_allowed', 'package_name_not_allowed'];

/** Every code the route may answer, each once, grouped by status (ascending), codes in ERROR_CODES order. */
export function routeErrorCodes(route: CompiledRoute): Map<number, ErrorCode[]> {
  const codes = new Set<ErrorCode>(['invalid_param_value', 'internal_error']);
  const add = (list: readonly ErrorCode[]) => list.forEach((code) => codes.add(code));
  const withBody = route.method !== 'GET' && !route.rawBody;
  if (route.body) add(annotatedErrorCodes(route.body) as ErrorCode[]);
  if (route.query) add(annotatedErrorCodes(route.query) as ErrorCode[]);
  if (route.key === 'publishable' || route.key === 'secret' || route.key === 'any') {
    add(KEY_ERRORS);
    if (route.key !== 'secret') add(LOCK_ERRORS);
    if (withBody) codes.add('env_mismatch');
  }
  if (route.key === 'operator') {
    codes.add('operator_unauthenticated');
    // Inside a project (`…/projects/:projectId/:env/…`) the operator's role on it is checked.
    if (route.path.includes('/:projectId/')) codes.add('insufficient_scope');
  }
  if (route.scope) codes.add('insufficient_scope');
  if (route.rateLimit || route.method !== 'GET') codes.add('rate_limited');
  add(SPEC_ROUTE_ERRORS[routeKey(route)] ?? []);

  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
    if (!codes.has(code)) continue;
    const status = ERROR_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}
