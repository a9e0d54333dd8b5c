import type { JSONSchemaType } from 'ajv';
import { dashboardRoute, IN_PROJECT, NO_STORE, reply } from './paths';

/** Overview: counts and per-day series over a chosen range (7, 30 or 90 days). */
export interface OverviewQuery {
  days?: '7' | '30' | '90';
}

export const overviewQuerySchema: JSONSchemaType<OverviewQuery> = {
  type: 'object',
  required: [],
  properties: { days: { type: 'string', nullable: true, enum: ['7', '30', '90'] } },
};

export const overviewRoute = dashboardRoute<unknown, OverviewQuery>({
  method: 'GET',
  path: `${IN_PROJECT}/overview`,
  key: 'operator',
  query: overviewQuerySchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.overview(Number(ctx.query.days ?? '30'))),
});
