import { auditEntryResponseSchema, auditEventParamsSchema, type DashboardAuditParams } from '../../wire/dashboard';
import { dashboardRoute, IN_PROJECT, NO_STORE, reply } from './paths';

/** One audit entry by event id, from the path's project and environment only (a customer's entries come with the customer). */
export const auditEntryRoute = dashboardRoute<unknown, Record<string, string>, DashboardAuditParams>({
  method: 'GET',
  path: `${IN_PROJECT}/audit/:eventId`,
  key: 'operator',
  params: auditEventParamsSchema,
  response: auditEntryResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.auditEntry(ctx.params.eventId)),
});
