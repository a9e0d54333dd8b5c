import type { JSONSchemaType } from 'ajv';
import { requireCustomerIdParam } from '../../entitlements/customerIds';
import type { GrantDuration } from '../../entitlements/durations';
import { grantBodySchema } from '../../entitlements/grantRoute';
import { revokeBodySchema } from '../../entitlements/revokeRoute';
import { invalidParam } from '../../http/errors';
import { route } from '../../http/route';
import { IN_PROJECT, NO_STORE, reply } from './paths';

/** Customers: search, one customer's whole picture, manual grant and revoke (with a reason), erasure. */

export interface SearchQuery {
  q: string;
}

export const searchQuerySchema: JSONSchemaType<SearchQuery> = {
  type: 'object',
  required: ['q'],
  properties: { q: { type: 'string', minLength: 1, maxLength: 256 } },
};

export const searchCustomersRoute = route<unknown, SearchQuery>({
  method: 'GET',
  path: `${IN_PROJECT}/customers`,
  key: 'operator',
  query: searchQuerySchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.findCustomers(ctx.query.q.trim())),
});

export const customerRoute = route({
  method: 'GET',
  path: `${IN_PROJECT}/customers/:customerId`,
  key: 'operator',
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.customer(requireCustomerIdParam(ctx.params.customerId))),
});

/** The same body and rules as the server API's grant (`POST /v1/server/customers/{id}/grant`). */
export interface GrantBody {
  entitlementKey: string;
  duration: GrantDuration;
  reason: string;
}

export const grantRoute = route<GrantBody>({
  method: 'POST',
  path: `${IN_PROJECT}/customers/:customerId/grant`,
  key: 'operator',
  body: grantBodySchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => {
    const { grant, audit } = await ctx.operator.console.grantEntitlement(requireCustomerIdParam(ctx.params.customerId), ctx.body.entitlementKey, ctx.body.duration, ctx.body.reason);
    return reply({ grant, auditEventId: audit.eventId, decision: audit.decision });
  },
});

export interface RevokeBody {
  entitlementKey: string;
  reason: string;
}

export const revokeRoute = route<RevokeBody>({
  method: 'POST',
  path: `${IN_PROJECT}/customers/:customerId/revoke`,
  key: 'operator',
  body: revokeBodySchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => {
    const { grant, audit } = await ctx.operator.console.revokeEntitlement(requireCustomerIdParam(ctx.params.customerId), ctx.body.entitlementKey, ctx.body.reason);
    return reply({ grant, auditEventId: audit.eventId, decision: audit.decision });
  },
});

/** Erasure asks the operator to type the customer id again (the page's confirmation). */
export interface EraseBody {
  confirmCustomerId: string;
}

export const eraseSchema: JSONSchemaType<EraseBody> = {
  type: 'object',
  required: ['confirmCustomerId'],
  properties: { confirmCustomerId: { type: 'string', minLength: 1, maxLength: 200 } },
};

export const eraseRoute = route<EraseBody>({
  method: 'POST',
  path: `${IN_PROJECT}/customers/:customerId/erase`,
  key: 'operator',
  body: eraseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => {
    const customerId = requireCustomerIdParam(ctx.params.customerId);
    if (ctx.body.confirmCustomerId !== customerId) throw invalidParam('confirmCustomerId must repeat the customer id being erased.');
    return reply(await ctx.operator.console.erase(customerId));
  },
});
