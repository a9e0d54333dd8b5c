import type { Scope } from '../../keys/scopes';
import { route, type CompiledRoute } from '../../http/route';
import type { EnvScope } from '../../store/scope';
import type { JsonSchema } from '../../wire/schema';
import { eventsReportSchema, rangeQuerySchema, revenueReportSchema, subscribersReportSchema, type RangeQuery } from '../../wire/reports';
import { eventsReport } from '../eventsReport';
import { parseRange, type ReportRange } from '../range';
import { revenueReport } from '../revenueReport';
import { subscribersReport } from '../subscribersReport';

/**
 * The three series reports: secret keys only, each behind its scope (checked by the pipeline
 * before any read), `from`/`to`/`granularity` in the query, the environment of the key. They
 * differ only in path, scope, service and answer, so one factory builds them.
 */
function seriesRoute<Report>(path: string, scope: Scope, report: (scope: EnvScope, range: ReportRange, now: number) => Promise<Report>, response: JsonSchema): CompiledRoute {
  return route<unknown, RangeQuery, Record<string, string>, Report>({
    method: 'GET',
    path,
    key: 'secret',
    scope,
    rateLimit: 'reports',
    cacheControl: 'private, no-store',
    query: rangeQuerySchema,
    response,
    handler: async (ctx) => {
      const now = ctx.deps.clock.now();
      return { body: await report(ctx.scope, parseRange(ctx.query, now), now) };
    },
  });
}

/** `GET /v1/reports/subscribers` (`reporting:aggregate`). */
export const subscribersRoute = seriesRoute('/v1/reports/subscribers', 'reporting:aggregate', subscribersReport, subscribersReportSchema);

/** `GET /v1/reports/revenue` (`revenue:read`). */
export const revenueRoute = seriesRoute('/v1/reports/revenue', 'revenue:read', revenueReport, revenueReportSchema);

/** `GET /v1/reports/events` (`buckets:read`). */
export const eventsRoute = seriesRoute('/v1/reports/events', 'buckets:read', eventsReport, eventsReportSchema);
