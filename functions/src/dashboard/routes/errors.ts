import type { JSONSchemaType } from 'ajv';
import { invalidParam } from '../../http/errors';
import { RELEASE_PATTERN } from '../../sourcemaps/limits';
import { dashboardRoute, IN_PROJECT, NO_STORE, reply } from './paths';

/** Errors: groups (from the reporting services), a group's latest sample symbolicated, a release's source maps. */

export interface ErrorsQuery {
  days?: '7' | '30' | '90';
  cursor?: string;
}

export const errorsQuerySchema: JSONSchemaType<ErrorsQuery> = {
  type: 'object',
  required: [],
  properties: {
    days: { type: 'string', nullable: true, enum: ['7', '30', '90'] },
    cursor: { type: 'string', nullable: true, minLength: 1, maxLength: 500 },
  },
};

export const errorGroupsRoute = dashboardRoute<unknown, ErrorsQuery>({
  method: 'GET',
  path: `${IN_PROJECT}/errors`,
  key: 'operator',
  query: errorsQuerySchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.errorGroups(Number(ctx.query.days ?? '30'), ctx.query.cursor ?? null)),
});

export const errorSampleRoute = dashboardRoute({
  method: 'GET',
  path: `${IN_PROJECT}/errors/:fingerprint`,
  key: 'operator',
  cacheControl: NO_STORE,
  handler: async (ctx) => {
    const fingerprint = ctx.params.fingerprint ?? '';
    if (!/^[0-9a-f]{32}$/.test(fingerprint)) throw invalidParam('Not an error fingerprint (32 hex characters).');
    return reply(await ctx.operator.console.errorGroup(fingerprint));
  },
});

/** A release's source maps (manifests only). */
export const releaseSourceMapsRoute = dashboardRoute({
  method: 'GET',
  path: `${IN_PROJECT}/releases/:release/sourcemaps`,
  key: 'operator',
  cacheControl: NO_STORE,
  handler: async (ctx) => {
    const release = ctx.params.release ?? '';
    if (!RELEASE_PATTERN.test(release)) throw invalidParam('A release is 1–64 characters: letters, digits, `.`, `_` or `-`.');
    return reply(await ctx.operator.console.releaseSourceMaps(release));
  },
});
