import { conflictIdParamsSchema, conflictsResponseSchema, identitySettingsResponseSchema, resolveConflictBodySchema, resolveConflictResponseSchema, type ConflictIdParams, type ResolveConflictBody } from '../../wire/dashboard';
import { dashboardRoute, IN_PROJECT, NO_STORE, reply } from './paths';

/** The review queue of identity conflicts: both customers side by side; merge or keep separate. */

export const conflictsRoute = dashboardRoute({
  method: 'GET',
  path: `${IN_PROJECT}/conflicts`,
  key: 'operator',
  response: conflictsResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.conflicts()),
});

/** The project's identity settings: the policy's state and what it means (shown with the queue). */
export const identitySettingsRoute = dashboardRoute({
  method: 'GET',
  path: `${IN_PROJECT}/identity-settings`,
  key: 'operator',
  response: identitySettingsResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.identitySettings()),
});

/** Merge or keep separate; the conflict id names its own partition (identity/conflicts.ts checks it is this one). */
export const resolveConflictRoute = dashboardRoute<ResolveConflictBody, Record<string, string>, ConflictIdParams>({
  method: 'POST',
  path: `${IN_PROJECT}/conflicts/:conflictId/resolve`,
  key: 'operator',
  body: resolveConflictBodySchema,
  params: conflictIdParamsSchema,
  response: resolveConflictResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.resolveConflict(ctx.params.conflictId, ctx.body.decision)),
});
