import { overviewQuerySchema, overviewResponseSchema, type OverviewQuery } from '../../wire/dashboard';
import { dashboardRoute, IN_PROJECT, NO_STORE, reply } from './paths';

/** Overview: counts and per-day series over a chosen range (7, 30 or 90 days). */
export const overviewRoute = dashboardRoute<unknown, OverviewQuery>({
  method: 'GET',
  path: `${IN_PROJECT}/overview`,
  key: 'operator',
  query: overviewQuerySchema,
  response: overviewResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.overview(Number(ctx.query.days ?? '30'))),
});
