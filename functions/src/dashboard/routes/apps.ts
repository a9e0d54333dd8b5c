import type { JSONSchemaType } from 'ajv';
import { invalidParam } from '../../http/errors';
import { PLATFORMS, type Platform } from '../../wire/vocabulary';
import { GRACES, graceBodySchema, type GraceBody } from './grace';
import { dashboardRoute, IN_PROJECT, NO_STORE, reply } from './paths';

/** Apps and keys: the project's apps with this environment's keys and their activity; create, rotate, revoke. */

export const appsRoute = dashboardRoute({
  method: 'GET',
  path: `${IN_PROJECT}/apps`,
  key: 'operator',
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.apps()),
});

export interface CreateAppBody {
  platform: Platform;
  name?: string;
  allowedOrigins?: string[];
  bundleId?: string;
  packageName?: string;
}

export const createAppSchema: JSONSchemaType<CreateAppBody> = {
  type: 'object',
  required: ['platform'],
  properties: {
    platform: { type: 'string', enum: [...PLATFORMS] },
    name: { type: 'string', nullable: true, minLength: 1, maxLength: 100 },
    allowedOrigins: { type: 'array', nullable: true, maxItems: 50, items: { type: 'string', minLength: 1, maxLength: 300, pattern: '^https?://' } },
    bundleId: { type: 'string', nullable: true, minLength: 1, maxLength: 155, pattern: '^[A-Za-z0-9.-]+$' },
    packageName: { type: 'string', nullable: true, minLength: 1, maxLength: 255, pattern: '^[A-Za-z][A-Za-z0-9_]*(\\.[A-Za-z][A-Za-z0-9_]*)+$' },
  },
};

export const createAppRoute = dashboardRoute<CreateAppBody>({
  method: 'POST',
  path: `${IN_PROJECT}/apps`,
  key: 'operator',
  body: createAppSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => {
    const { platform, name, allowedOrigins, bundleId, packageName } = ctx.body;
    return reply(await ctx.operator.console.createApp({ platform, name, allowedOrigins: allowedOrigins ?? [], bundleId, packageName }));
  },
});

/** Both keys of the path's environment; the plaintexts are in this answer only. */
export const createKeysRoute = dashboardRoute({
  method: 'POST',
  path: `${IN_PROJECT}/apps/:appId/keys`,
  key: 'operator',
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.createKeys(ctx.params.appId ?? '')),
});

/** Keys are named by id in paths, never by their plaintext (paths are logged). */
function keyIdParam(value: string | undefined): string {
  if (!value || !/^key_[A-Za-z0-9]{1,64}$/.test(value)) throw invalidParam('The path must name a key by its id (key_…).');
  return value;
}

export const rotateKeyRoute = dashboardRoute<GraceBody>({
  method: 'POST',
  path: `${IN_PROJECT}/keys/:keyId/rotate`,
  key: 'operator',
  body: graceBodySchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.rotateKey(keyIdParam(ctx.params.keyId), GRACES[ctx.body.grace])),
});

export const revokeKeyRoute = dashboardRoute({
  method: 'POST',
  path: `${IN_PROJECT}/keys/:keyId/revoke`,
  key: 'operator',
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.revokeKey(keyIdParam(ctx.params.keyId))),
});
