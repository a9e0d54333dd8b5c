import type { BenchContext, Scenario } from '../scenario';

const webKey = (ctx: BenchContext) => ctx.project.apps.find((a) => a.platform === 'web')!.keys.test;

export const platformScenarios: Scenario[] = [
  { name: 'GET /v1/healthz', prepare: async () => ({ method: 'GET', path: '/v1/healthz' }) },
  {
    name: 'GET /v1/config (publishable, web origin lock)',
    prepare: async (ctx) => ({ method: 'GET', path: '/v1/config', headers: { Authorization: `Bearer ${webKey(ctx).publishable}`, Origin: 'http://localhost:3000' } }),
  },
  {
    name: 'GET /v1/sdk/heartbeat (1/s, burst 10: mostly 429 by design)',
    note: 'rate-limited per project and environment; the figure is the throttled path',
    prepare: async (ctx) => ({ method: 'GET', path: '/v1/sdk/heartbeat', headers: { Authorization: `Bearer ${webKey(ctx).secret}` } }),
  },
];
