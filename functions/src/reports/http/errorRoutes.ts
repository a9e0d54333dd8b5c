import { route } from '../../http/route';
import { errorDetailResponseSchema, errorsQuerySchema, errorsReportSchema, fingerprintParamsSchema, type ErrorDetailResponse, type ErrorsQuery, type ErrorsReport, type FingerprintParams } from '../../wire/reports';
import { pageSizeOf } from '../cursor';
import { errorGroupDetail } from '../errorDetail';
import { errorsReport } from '../errorsReport';
import { parseRange } from '../range';

/** `GET /v1/reports/errors` (`errors:read`): groups last seen in `from`–`to`, newest first, paged. */
export const errorsRoute = route<unknown, ErrorsQuery, Record<string, string>, ErrorsReport>({
  method: 'GET',
  path: '/v1/reports/errors',
  key: 'secret',
  scope: 'errors:read',
  rateLimit: 'reports',
  cacheControl: 'private, no-store',
  query: errorsQuerySchema,
  response: errorsReportSchema,
  handler: async (ctx) => {
    const range = parseRange({ from: ctx.query.from, to: ctx.query.to }, ctx.deps.clock.now());
    return { body: await errorsReport(ctx.scope, { from: range.from, to: range.to, cursor: ctx.query.cursor ?? null, limit: pageSizeOf(ctx.query) }) };
  },
});

/** `GET /v1/reports/errors/{fingerprint}` (`errors:read`): the group and its latest sample, symbolicated now (an unknown fingerprint is the service's 400). */
export const errorDetailRoute = route<unknown, Record<string, string>, FingerprintParams, ErrorDetailResponse>({
  method: 'GET',
  path: '/v1/reports/errors/:fingerprint',
  key: 'secret',
  scope: 'errors:read',
  rateLimit: 'reports',
  cacheControl: 'private, no-store',
  params: fingerprintParamsSchema,
  response: errorDetailResponseSchema,
  handler: async (ctx) => ({ body: { object: 'error_group', data: await errorGroupDetail(ctx.scope, ctx.params.fingerprint) } }),
});
