import type { JSONSchemaType } from 'ajv';
import { route } from '../../http/route';
import { pageQueryProperties, pageSizeOf } from '../cursor';
import { customersReport } from '../customersReport';

interface CustomersQuery {
  cursor?: string;
  limit?: string;
}

const customersQuerySchema = {
  type: 'object',
  properties: pageQueryProperties,
  additionalProperties: false,
} as unknown as JSONSchemaType<CustomersQuery>;

/**
 * `GET /v1/reports/customers` (`reporting:identity`: row-level data, which a key holds only when
 * its creator acknowledged the row-level-data terms): customers with identities and active
 * entitlements, paged.
 */
export const customersRoute = route<unknown, CustomersQuery>({
  method: 'GET',
  path: '/v1/reports/customers',
  key: 'secret',
  scope: 'reporting:identity',
  rateLimit: 'reports',
  cacheControl: 'private, no-store',
  query: customersQuerySchema,
  handler: async (ctx) => {
    return { body: await customersReport(ctx.scope, { cursor: ctx.query.cursor ?? null, limit: pageSizeOf(ctx.query) }, ctx.deps.clock.now()) };
  },
});
