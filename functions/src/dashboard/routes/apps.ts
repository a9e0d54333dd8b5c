import {
  appIdParamsSchema,
  appsResponseSchema,
  createAppBodySchema,
  createAppResponseSchema,
  createKeysResponseSchema,
  graceBodySchema,
  keyIdParamsSchema,
  revokeKeyResponseSchema,
  rotateKeyResponseSchema,
  type AppIdParams,
  type CreateAppBody,
  type GraceBody,
  type KeyIdParams,
} from '../../wire/dashboard';
import { GRACES } from './grace';
import { dashboardRoute, IN_PROJECT, NO_STORE, reply } from './paths';

/** Apps and keys: the project's apps with this environment's keys and their activity; create, rotate, revoke. */

export const appsRoute = dashboardRoute({
  method: 'GET',
  path: `${IN_PROJECT}/apps`,
  key: 'operator',
  response: appsResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.apps()),
});

export const createAppRoute = dashboardRoute<CreateAppBody>({
  method: 'POST',
  path: `${IN_PROJECT}/apps`,
  key: 'operator',
  body: createAppBodySchema,
  response: createAppResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => {
    const { platform, name, allowedOrigins, bundleId, packageName } = ctx.body;
    return reply(await ctx.operator.console.createApp({ platform, name: name ?? undefined, allowedOrigins: allowedOrigins ?? [], bundleId: bundleId ?? undefined, packageName: packageName ?? undefined }));
  },
});

/** Both keys of the path's environment; the plaintexts are in this answer only. */
export const createKeysRoute = dashboardRoute<unknown, Record<string, string>, AppIdParams>({
  method: 'POST',
  path: `${IN_PROJECT}/apps/:appId/keys`,
  key: 'operator',
  params: appIdParamsSchema,
  response: createKeysResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.createKeys(ctx.params.appId)),
});

/** Keys are named by id in paths, never by their plaintext (paths are logged): `keyIdParamsSchema`. */
export const rotateKeyRoute = dashboardRoute<GraceBody, Record<string, string>, KeyIdParams>({
  method: 'POST',
  path: `${IN_PROJECT}/keys/:keyId/rotate`,
  key: 'operator',
  body: graceBodySchema,
  params: keyIdParamsSchema,
  response: rotateKeyResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.rotateKey(ctx.params.keyId, GRACES[ctx.body.grace])),
});

export const revokeKeyRoute = dashboardRoute<unknown, Record<string, string>, KeyIdParams>({
  method: 'POST',
  path: `${IN_PROJECT}/keys/:keyId/revoke`,
  key: 'operator',
  params: keyIdParamsSchema,
  response: revokeKeyResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.revokeKey(ctx.params.keyId)),
});
