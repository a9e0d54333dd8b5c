import { route } from '../../http/route';

export const healthzRoute = route({
  method: 'GET',
  path: '/v1/healthz',
  key: 'none',
  cacheControl: 'no-store',
  handler: async (ctx) => ({
    body: { status: 'ok', service: 'tessera', timestamp: ctx.deps.clock.now(), region: ctx.deps.settings.region },
  }),
});
