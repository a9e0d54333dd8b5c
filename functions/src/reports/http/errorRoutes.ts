import type { JSONSchemaType } from 'ajv';
import { route } from '../../http/route';
import { pageQueryProperties, pageSizeOf } from '../cursor';
import { errorGroupDetail } from '../errorDetail';
import { errorsReport } from '../errorsReport';
import { parseRange, rangeQueryProperties } from '../range';

interface ErrorsQuery {
  from?: string;
  to?: string;
  cursor?: string;
  limit?: string;
}

const errorsQuerySchema = {
  type: 'object',
  properties: { from: rangeQueryProperties.from, to: rangeQueryProperties.to, ...pageQueryProperties },
  additionalProperties: false,
} as unknown as JSONSchemaType<ErrorsQuery>;

/** `GET /v1/reports/errors` (`errors:read`): groups last seen in `from`–`to`, newest first, paged. */
export const errorsRoute = route<unknown, ErrorsQuery>({
  method: 'GET',
  path: '/v1/reports/errors',
  key: 'secret',
  scope: 'errors:read',
  rateLimit: 'reports',
  cacheControl: 'private, no-store',
  query: errorsQuerySchema,
  handler: async (ctx) => {
    const range = parseRange({ from: ctx.query.from, to: ctx.query.to }, ctx.deps.clock.now());
    return { body: await errorsReport(ctx.scope, { from: range.from, to: range.to, cursor: ctx.query.cursor ?? null, limit: pageSizeOf(ctx.query) }) };
  },
});

/** `GET /v1/reports/errors/{fingerprint}` (`errors:read`): the group and its latest sample, symbolicated now. */
export const errorDetailRoute = route({
  method: 'GET',
  path: '/v1/reports/errors/:fingerprint',
  key: 'secret',
  scope: 'errors:read',
  rateLimit: 'reports',
  cacheControl: 'private, no-store',
  handler: async (ctx) => ({ body: { object: 'error_group', data: await errorGroupDetail(ctx.scope, ctx.params.fingerprint ?? '') } }),
});
