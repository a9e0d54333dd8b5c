import { route } from '../../http/route';
import { SDK_VERSIONS } from '../surfaces';

export const versionsRoute = route({
  method: 'GET',
  path: '/v1/sdk/versions',
  key: 'none',
  cacheControl: 'public, max-age=300',
  handler: async (ctx) => ({
    body: { object: 'sdk_versions', surfaces: SDK_VERSIONS, generatedAt: ctx.deps.clock.now() },
  }),
});
