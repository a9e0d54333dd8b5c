import { invalidParam } from '../../http/errors';
import {
  customerAuditResponseSchema,
  customerEventsResponseSchema,
  customerListQuerySchema,
  customerListResponseSchema,
  customerResponseSchema,
  eraseBodySchema,
  eraseResponseSchema,
  grantChangeResponseSchema,
  historyQuerySchema,
  searchQuerySchema,
  searchResponseSchema,
  type CustomerListQueryWire,
  type EraseBody,
  type HistoryQuery,
  type SearchQuery,
} from '../../wire/dashboard';
import { customerIdParamsSchema, grantBodySchema, revokeBodySchema, type CustomerIdParams, type GrantBody, type RevokeBody } from '../../wire/entitlements';
import { DEFAULT_LIST_SIZE } from '../customerList';
import { dashboardRoute, IN_PROJECT, NO_STORE, reply } from './paths';

/** Customers: search, one customer's whole picture, manual grant and revoke (with a reason), erasure. */

export const searchCustomersRoute = dashboardRoute<unknown, SearchQuery>({
  method: 'GET',
  path: `${IN_PROJECT}/customers`,
  key: 'operator',
  query: searchQuerySchema,
  response: searchResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.findCustomers(ctx.query.q.trim())),
});

/** The customer list: paging and filters, each answered by one indexed query (dashboard/customerList.ts). */
export const listCustomersRoute = dashboardRoute<unknown, CustomerListQueryWire>({
  method: 'GET',
  path: `${IN_PROJECT}/customer-list`,
  key: 'operator',
  query: customerListQuerySchema,
  response: customerListResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => {
    const q = ctx.query;
    const number = (v: string | undefined) => (v === undefined ? undefined : Number(v));
    return reply(
      await ctx.operator.console.listCustomers({
        status: q.status,
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

/** The next pages of a customer's audit trail and events, newest first (dashboard/customerHistory.ts). */
export const customerAuditRoute = dashboardRoute<unknown, HistoryQuery, CustomerIdParams>({
  method: 'GET',
  path: `${IN_PROJECT}/customers/:customerId/audit`,
  key: 'operator',
  query: historyQuerySchema,
  params: customerIdParamsSchema,
  response: customerAuditResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.customerAudit(ctx.params.customerId, ctx.query.cursor ?? null)),
});

export const customerEventsRoute = dashboardRoute<unknown, HistoryQuery, CustomerIdParams>({
  method: 'GET',
  path: `${IN_PROJECT}/customers/:customerId/events`,
  key: 'operator',
  query: historyQuerySchema,
  params: customerIdParamsSchema,
  response: customerEventsResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.customerEvents(ctx.params.customerId, ctx.query.cursor ?? null)),
});

export const customerRoute = dashboardRoute<unknown, Record<string, string>, CustomerIdParams>({
  method: 'GET',
  path: `${IN_PROJECT}/customers/:customerId`,
  key: 'operator',
  params: customerIdParamsSchema,
  response: customerResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.customer(ctx.params.customerId)),
});

/** The same body and rules as the server API's grant (`POST /v1/server/customers/{id}/grant`). */
export const grantRoute = dashboardRoute<GrantBody, Record<string, string>, CustomerIdParams>({
  method: 'POST',
  path: `${IN_PROJECT}/customers/:customerId/grant`,
  key: 'operator',
  body: grantBodySchema,
  params: customerIdParamsSchema,
  response: grantChangeResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => {
    const { grant, audit } = await ctx.operator.console.grantEntitlement(ctx.params.customerId, ctx.body.entitlementKey, ctx.body.duration, ctx.body.reason);
    return reply({ grant, auditEventId: audit.eventId, decision: audit.decision });
  },
});

export const revokeRoute = dashboardRoute<RevokeBody, Record<string, string>, CustomerIdParams>({
  method: 'POST',
  path: `${IN_PROJECT}/customers/:customerId/revoke`,
  key: 'operator',
  body: revokeBodySchema,
  params: customerIdParamsSchema,
  response: grantChangeResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => {
    const { grant, audit } = await ctx.operator.console.revokeEntitlement(ctx.params.customerId, ctx.body.entitlementKey, ctx.body.reason);
    return reply({ grant, auditEventId: audit.eventId, decision: audit.decision });
  },
});

/** Erasure asks the operator to type the customer id again (the page's confirmation). */
export const eraseRoute = dashboardRoute<EraseBody, Record<string, string>, CustomerIdParams>({
  method: 'POST',
  path: `${IN_PROJECT}/customers/:customerId/erase`,
  key: 'operator',
  body: eraseBodySchema,
  params: customerIdParamsSchema,
  response: eraseResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => {
    const { customerId } = ctx.params;
    if (ctx.body.confirmCustomerId !== customerId) throw invalidParam('confirmCustomerId must repeat the customer id being erased.');
    return reply(await ctx.operator.console.erase(customerId));
  },
});
