import { route } from '../../http/route';
import { versionsResponseSchema, type VersionsResponse } from '../../wire/sdk';
import { SDK_VERSIONS } from '../surfaces';

export const versionsRoute = route<unknown, Record<string, string>, Record<string, string>, VersionsResponse>({
  method: 'GET',
  path: '/v1/sdk/versions',
  key: 'none',
  response: versionsResponseSchema,
  cacheControl: 'public, max-age=300',
  handler: async (ctx) => ({
    body: { object: 'sdk_versions', surfaces: SDK_VERSIONS, generatedAt: ctx.deps.clock.now() },
  }),
});
