import {
  errorGroupResponseSchema,
  errorGroupsResponseSchema,
  errorsQuerySchema,
  fingerprintParamsSchema,
  releaseParamsSchema,
  releaseSourceMapsResponseSchema,
  type DashboardErrorsQuery,
  type DashboardFingerprintParams,
  type ReleaseParams,
} from '../../wire/dashboard';
import { dashboardRoute, IN_PROJECT, NO_STORE, reply } from './paths';

/** Errors: groups (from the reporting services), a group's latest sample symbolicated, a release's source maps. */

export const errorGroupsRoute = dashboardRoute<unknown, DashboardErrorsQuery>({
  method: 'GET',
  path: `${IN_PROJECT}/errors`,
  key: 'operator',
  query: errorsQuerySchema,
  response: errorGroupsResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.errorGroups(Number(ctx.query.days ?? '30'), ctx.query.cursor ?? null)),
});

export const errorSampleRoute = dashboardRoute<unknown, Record<string, string>, DashboardFingerprintParams>({
  method: 'GET',
  path: `${IN_PROJECT}/errors/:fingerprint`,
  key: 'operator',
  params: fingerprintParamsSchema,
  response: errorGroupResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.errorGroup(ctx.params.fingerprint)),
});

/** A release's source maps (manifests only). */
export const releaseSourceMapsRoute = dashboardRoute<unknown, Record<string, string>, ReleaseParams>({
  method: 'GET',
  path: `${IN_PROJECT}/releases/:release/sourcemaps`,
  key: 'operator',
  params: releaseParamsSchema,
  response: releaseSourceMapsResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.releaseSourceMaps(ctx.params.release)),
});
