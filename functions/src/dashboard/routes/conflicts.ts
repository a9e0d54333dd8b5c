import type { JSONSchemaType } from 'ajv';
import { dashboardRoute, IN_PROJECT, NO_STORE, reply } from './paths';

/** The review queue of identity conflicts: both customers side by side; merge or keep separate. */

export const conflictsRoute = dashboardRoute({
  method: 'GET',
  path: `${IN_PROJECT}/conflicts`,
  key: 'operator',
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.conflicts()),
});

/** The project's identity settings: the policy's state and what it means (shown with the queue). */
export const identitySettingsRoute = dashboardRoute({
  method: 'GET',
  path: `${IN_PROJECT}/identity-settings`,
  key: 'operator',
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.identitySettings()),
});

export interface ResolveBody {
  decision: 'merge' | 'keep_separate';
}

export const resolveSchema: JSONSchemaType<ResolveBody> = {
  type: 'object',
  required: ['decision'],
  properties: { decision: { type: 'string', enum: ['merge', 'keep_separate'] } },
};

export const resolveConflictRoute = dashboardRoute<ResolveBody>({
  method: 'POST',
  path: `${IN_PROJECT}/conflicts/:conflictId/resolve`,
  key: 'operator',
  body: resolveSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.resolveConflict(ctx.params.conflictId ?? '', ctx.body.decision)),
});
