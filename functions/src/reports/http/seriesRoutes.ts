import type { Scope } from '../../keys/scopes';
import { route, type CompiledRoute } from '../../http/route';
import type { EnvScope } from '../../store/scope';
import { eventsReport } from '../eventsReport';
import { parseRange, rangeQuerySchema, type RangeQuery, type ReportRange } from '../range';
import { revenueReport } from '../revenueReport';
import { subscribersReport } from '../subscribersReport';

/**
 * The three series reports: secret keys only, each behind its scope (checked by the pipeline
 * before any read), `from`/`to`/`granularity` in the query, the environment of the key. They
 * differ only in path, scope and service, so one factory builds them.
 */
function seriesRoute(path: string, scope: Scope, report: (scope: EnvScope, range: ReportRange, now: number) => Promise<unknown>): CompiledRoute {
  return route<unknown, RangeQuery>({
    method: 'GET',
    path,
    key: 'secret',
    scope,
    rateLimit: 'reports',
    cacheControl: 'private, no-store',
    query: rangeQuerySchema,
    handler: async (ctx) => {
      const now = ctx.deps.clock.now();
      return { body: await report(ctx.scope, parseRange(ctx.query, now), now) };
    },
  });
}

/** `GET /v1/reports/subscribers` (`reporting:aggregate`). */
export const subscribersRoute = seriesRoute('/v1/reports/subscribers', 'reporting:aggregate', subscribersReport);

/** `GET /v1/reports/revenue` (`revenue:read`). */
export const revenueRoute = seriesRoute('/v1/reports/revenue', 'revenue:read', revenueReport);

/** `GET /v1/reports/events` (`buckets:read`). */
export const eventsRoute = seriesRoute('/v1/reports/events', 'buckets:read', eventsReport);
