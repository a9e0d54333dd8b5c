import type { JSONSchemaType } from 'ajv';
import { toPublicEntitlements } from '../../entitlements/publicShape';
import type { PublicEntitlement } from '../../entitlements/model';
import { ApiError, invalidParam } from '../../http/errors';
import { route } from '../../http/route';
import { CUSTOMER_ID_PATTERN, hasCustomerPrefix, readByCustomerId, readProjectionByIdentity } from '../customerRead';
import { requireAnonymousId, requireUserId } from '../identifiers';
import { verifiedUserGuard } from '../identityPolicy';
import { identityPorts, type IdentityRoutePorts } from './requestPorts';

/** `GET /v1/entitlements?customerId|userId|anonymousId=…`: one customer's entitlements. */
export interface EntitlementsQuery {
  customerId?: string;
  userId?: string;
  anonymousId?: string;
}

const once = { type: 'string', nullable: true, 'x-invalid': 'give it once' } as const;

/**
 * Each hint at most once. Which hint, and its format, are checked after validation, in the
 * spec's order of codes (missing_customer, invalid_customer, then several hints, then format).
 */
export const entitlementsQuerySchema: JSONSchemaType<EntitlementsQuery> = {
  type: 'object',
  required: [],
  properties: { customerId: once, userId: once, anonymousId: once },
};

export interface EntitlementListResponse {
  object: 'list';
  data: PublicEntitlement[];
  serviceCustomerId: string;
  env: string;
}

type Hint = { field: 'customerId' | 'userId' | 'anonymousId'; value: string };

/** Exactly one hint; the checks run in the spec's order of codes. */
export function parseEntitlementsHint(query: EntitlementsQuery): Hint {
  const present: Hint[] = [];
  for (const field of ['customerId', 'userId', 'anonymousId'] as const) {
    const raw = query[field];
    if (raw === undefined || raw === '') continue;
    present.push({ field, value: raw });
  }
  if (present.length === 0) throw new ApiError('missing_customer', 'Give exactly one customer hint: customerId, userId or anonymousId.');
  const customer = present.find((h) => h.field === 'customerId');
  if (customer && (!hasCustomerPrefix(customer.value) || !CUSTOMER_ID_PATTERN.test(customer.value))) {
    throw new ApiError('invalid_customer', 'customerId must be a service customer id starting with `cdcust_`.');
  }
  if (present.length > 1) throw invalidParam('Give exactly one customer hint: customerId, userId or anonymousId, not several.');
  const [hint] = present;
  if (hint.field === 'userId') requireUserId(hint.value);
  if (hint.field === 'anonymousId') requireAnonymousId(hint.value);
  return hint;
}

export const entitlementsReadRoute = route<unknown, EntitlementsQuery, IdentityRoutePorts>({
  method: 'GET',
  path: '/v1/entitlements',
  key: 'any',
  rateLimit: 'entitlements',
  query: entitlementsQuerySchema,
  cacheControl: 'private, no-store',
  async handler(ctx) {
    const hint = parseEntitlementsHint(ctx.query);
    const now = ctx.deps.clock.now();
    // A publishable key reading by userId is subject to the project's require-verified policy.
    const guard = hint.field === 'userId' && ctx.auth.kind === 'publishable' ? verifiedUserGuard(ctx.scope, identityPorts(ctx).ports.memory.policy, now) : undefined;
    const found =
      hint.field === 'customerId'
        ? await readByCustomerId(ctx.scope, hint.value)
        : await readProjectionByIdentity(ctx.scope, hint.field === 'userId' ? 'developer' : 'anonymous', hint.value, guard);
    const body: EntitlementListResponse = {
      object: 'list',
      data: found ? toPublicEntitlements(found.projection, now) : [],
      serviceCustomerId: found ? found.customerId : '',
      env: ctx.auth.wireEnv,
    };
    return { body };
  },
});
