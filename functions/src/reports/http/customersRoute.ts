import { route } from '../../http/route';
import { customersReportSchema, pageQuerySchema, type CustomersReport, type PageQuery } from '../../wire/reports';
import { pageSizeOf } from '../cursor';
import { customersReport } from '../customersReport';

/**
 * `GET /v1/reports/customers` (`reporting:identity`: row-level data, which a key holds only when
 * its creator acknowledged the row-level-data terms): customers with identities and active
 * entitlements, paged.
 */
export const customersRoute = route<unknown, PageQuery, Record<string, string>, CustomersReport>({
  method: 'GET',
  path: '/v1/reports/customers',
  key: 'secret',
  scope: 'reporting:identity',
  rateLimit: 'reports',
  cacheControl: 'private, no-store',
  query: pageQuerySchema,
  response: customersReportSchema,
  handler: async (ctx) => {
    return { body: await customersReport(ctx.scope, { cursor: ctx.query.cursor ?? null, limit: pageSizeOf(ctx.query) }, ctx.deps.clock.now()) };
  },
});
