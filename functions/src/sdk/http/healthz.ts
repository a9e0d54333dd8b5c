import { route } from '../../http/route';
import { healthzResponseSchema, type HealthzResponse } from '../../wire/sdk';

export const healthzRoute = route<unknown, Record<string, string>, Record<string, string>, HealthzResponse>({
  method: 'GET',
  path: '/v1/healthz',
  key: 'none',
  response: healthzResponseSchema,
  cacheControl: 'no-store',
  handler: async (ctx) => ({
    body: { status: 'ok', service: 'tessera', timestamp: ctx.deps.clock.now(), region: ctx.deps.settings.region },
  }),
});
