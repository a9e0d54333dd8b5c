import { route } from '../http/route';
import { eventsReport } from './eventsReport';
import { parseRange, rangeQuerySchema, type RangeQuery } from './range';
import { revenueReport } from './revenueReport';
import { subscribersReport } from './subscribersReport';

/**
 * The three series reports: secret keys only, each behind its scope (checked by the pipeline
 * before any read), `from`/`to`/`granularity` in the query, the environment of the key.
 */
const NO_STORE = 'private, no-store';

/** `GET /v1/reports/subscribers` (`reporting:aggregate`). */
export const subscribersRoute = route<unknown, RangeQuery>({
  method: 'GET',
  path: '/v1/reports/subscribers',
  key: 'secret',
  scope: 'reporting:aggregate',
  cacheControl: NO_STORE,
  query: rangeQuerySchema,
  handler: async (ctx) => {
    const now = ctx.deps.clock.now();
    return { body: await subscribersReport(ctx.scope, parseRange(ctx.query, now), now) };
  },
});

/** `GET /v1/reports/revenue` (`revenue:read`). */
export const revenueRoute = route<unknown, RangeQuery>({
  method: 'GET',
  path: '/v1/reports/revenue',
  key: 'secret',
  scope: 'revenue:read',
  cacheControl: NO_STORE,
  query: rangeQuerySchema,
  handler: async (ctx) => {
    const now = ctx.deps.clock.now();
    return { body: await revenueReport(ctx.scope, parseRange(ctx.query, now), now) };
  },
});

/** `GET /v1/reports/events` (`buckets:read`). */
export const eventsRoute = route<unknown, RangeQuery>({
  method: 'GET',
  path: '/v1/reports/events',
  key: 'secret',
  scope: 'buckets:read',
  cacheControl: NO_STORE,
  query: rangeQuerySchema,
  handler: async (ctx) => {
    const now = ctx.deps.clock.now();
    return { body: await eventsReport(ctx.scope, parseRange(ctx.query, now), now) };
  },
});
