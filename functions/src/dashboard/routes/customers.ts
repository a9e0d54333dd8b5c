import type { JSONSchemaType } from 'ajv';
import { requireCustomerIdParam } from '../../entitlements/customerIds';
import type { GrantDuration } from '../../entitlements/durations';
import { grantBodySchema } from '../../entitlements/http/grantRoute';
import { revokeBodySchema } from '../../entitlements/http/revokeRoute';
import { invalidParam } from '../../http/errors';
import { CUSTOMER_STATUSES, DEFAULT_LIST_SIZE, MAX_LIST_SIZE, type CustomerListQuery } from '../customerList';
import { dashboardRoute, IN_PROJECT, NO_STORE, reply } from './paths';

/** Customers: search, one customer's whole picture, manual grant and revoke (with a reason), erasure. */

export interface SearchQuery {
  q: string;
}

export const searchQuerySchema: JSONSchemaType<SearchQuery> = {
  type: 'object',
  required: ['q'],
  properties: { q: { type: 'string', minLength: 1, maxLength: 256 } },
};

export const searchCustomersRoute = dashboardRoute<unknown, SearchQuery>({
  method: 'GET',
  path: `${IN_PROJECT}/customers`,
  key: 'operator',
  query: searchQuerySchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.findCustomers(ctx.query.q.trim())),
});

export interface ListQuery {
  status?: string;
  createdFrom?: string;
  createdTo?: string;
  emailPrefix?: string;
  userIdPrefix?: string;
  entitlement?: string;
  rail?: string;
  limit?: string;
  cursor?: string;
}

const MS = { type: 'string', pattern: '^[0-9]{1,15}$', nullable: true, 'x-invalid': 'Unix milliseconds' } as const;
const PREFIX = { type: 'string', minLength: 1, maxLength: 256, nullable: true } as const;

export const listQuerySchema: JSONSchemaType<ListQuery> = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: [...CUSTOMER_STATUSES], nullable: true },
    createdFrom: MS,
    createdTo: MS,
    emailPrefix: PREFIX,
    userIdPrefix: PREFIX,
    entitlement: { type: 'string', minLength: 1, maxLength: 128, nullable: true },
    rail: { type: 'string', enum: ['stripe', 'apple', 'google', 'manual'], nullable: true },
    limit: { type: 'string', pattern: `^(?:[1-9][0-9]?|100)$`, nullable: true, 'x-invalid': `an integer from 1 to ${MAX_LIST_SIZE}` },
    cursor: { type: 'string', minLength: 1, maxLength: 512, pattern: '^[A-Za-z0-9_-]+$', nullable: true },
  },
  required: [],
};

/** The customer list: paging and filters, each answered by one indexed query (dashboard/customerList.ts). */
export const listCustomersRoute = dashboardRoute<unknown, ListQuery>({
  method: 'GET',
  path: `${IN_PROJECT}/customer-list`,
  key: 'operator',
  query: listQuerySchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => {
    const q = ctx.query;
    const number = (v: string | undefined) => (v === undefined ? undefined : Number(v));
    return reply(
      await ctx.operator.console.listCustomers({
        status: q.status as CustomerListQuery['status'],
        createdFrom: number(q.createdFrom),
        createdTo: number(q.createdTo),
        emailPrefix: q.emailPrefix,
        userIdPrefix: q.userIdPrefix,
        entitlement: q.entitlement,
        rail: q.rail,
        limit: number(q.limit) ?? DEFAULT_LIST_SIZE,
        cursor: q.cursor,
      }),
    );
  },
});

export interface PageQuery {
  cursor?: string;
}

const pageQuerySchema: JSONSchemaType<PageQuery> = {
  type: 'object',
  properties: { cursor: { type: 'string', minLength: 1, maxLength: 512, pattern: '^[A-Za-z0-9_-]+$', nullable: true } },
  required: [],
};

/** The next pages of a customer's audit trail and events, newest first (dashboard/customerHistory.ts). */
export const customerAuditRoute = dashboardRoute<unknown, PageQuery>({
  method: 'GET',
  path: `${IN_PROJECT}/customers/:customerId/audit`,
  key: 'operator',
  query: pageQuerySchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.customerAudit(requireCustomerIdParam(ctx.params.customerId), ctx.query.cursor ?? null)),
});

export const customerEventsRoute = dashboardRoute<unknown, PageQuery>({
  method: 'GET',
  path: `${IN_PROJECT}/customers/:customerId/events`,
  key: 'operator',
  query: pageQuerySchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.customerEvents(requireCustomerIdParam(ctx.params.customerId), ctx.query.cursor ?? null)),
});

export const customerRoute = dashboardRoute({
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

export const grantRoute = dashboardRoute<GrantBody>({
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

export const revokeRoute = dashboardRoute<RevokeBody>({
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

export const eraseRoute = dashboardRoute<EraseBody>({
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
