import { invalidParam } from '../../http/errors';
import { route } from '../../http/route';
import { RELEASE_PATTERN } from '../../sourcemaps/limits';
import { IN_PROJECT, NO_STORE, reply } from './paths';

/** Errors: groups by fingerprint, and a group's newest sample with its stack symbolicated. */

export const errorGroupsRoute = route({
  method: 'GET',
  path: `${IN_PROJECT}/errors`,
  key: 'operator',
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.errorGroups()),
});

export const errorSampleRoute = route({
  method: 'GET',
  path: `${IN_PROJECT}/errors/:fingerprint`,
  key: 'operator',
  cacheControl: NO_STORE,
  handler: async (ctx) => {
    const fingerprint = ctx.params.fingerprint ?? '';
    if (!/^[0-9a-f]{32}$/.test(fingerprint)) throw invalidParam('Not an error fingerprint (32 hex characters).');
    return reply(await ctx.operator.console.errorSample(fingerprint));
  },
});

/** A release's source maps (manifests only). */
export const releaseSourceMapsRoute = route({
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
