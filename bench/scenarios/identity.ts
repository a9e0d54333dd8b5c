import { linkHints } from '#functions/identity/repository';
import { EnvScope } from '#functions/store/scope';
import type { BenchContext, Scenario } from '../scenario';
import { readsStoreFloor } from '../floor';

/**
 * Identity: identify (a new user and device per request: one transaction that reads the two
 * identity-index documents and creates the customer and both entries), the entitlements read by
 * userId (identity-index document with the key re-check in one getAll, then the projection) and
 * resolve of a recognised device (identity-index document, then the customer). Publishable web
 * keys, as an app would call them.
 */
const web = (ctx: BenchContext) => ctx.project.apps.find((app) => app.platform === 'web')!.keys.test;
const ORIGIN = 'http://localhost:3000';

async function knownUser(ctx: BenchContext): Promise<{ userId: string; anonymousId: string }> {
  const scope = new EnvScope(ctx.deps.db, ctx.project.projectId, 'test');
  const now = ctx.deps.clock.now();
  const userId = `bench-user-${now}`;
  const anonymousId = `bench-device-${now}`;
  await linkHints(scope, [{ kind: 'developer', id: userId }, { kind: 'anonymous', id: anonymousId }], 'self_asserted', now);
  return { userId, anonymousId };
}

let sequence = 0;

export const identityScenarios: Scenario[] = [
  {
    name: 'POST /v1/identify, new user per request, 10 clients (alias bucket 10/s, burst 100: mostly 429 after the burst)',
    note: 'one transaction: both identity documents read, customer and entries created with create()',
    connections: 10,
    prepare: async (ctx) => ({
      method: 'POST',
      path: '/v1/identify',
      headers: { Authorization: `Bearer ${web(ctx).publishable}`, Origin: ORIGIN },
      nextBody: () => {
        sequence += 1;
        return JSON.stringify({ userId: `bench-identify-${process.pid}-${sequence}`, anonymousId: `bench-anon-${process.pid}-${sequence}`, traits: { plan: 'pro' } });
      },
    }),
  },
  {
    name: 'GET /v1/entitlements?userId=…, 10 clients (entitlements bucket 100/s, burst 1,000)',
    note: 'target ≤ 2 round trips: identity document + key re-check in one getAll, then the projection',
    connections: 10,
    prepare: async (ctx) => {
      const { userId } = await knownUser(ctx);
      return { method: 'GET', path: `/v1/entitlements?userId=${encodeURIComponent(userId)}`, headers: { Authorization: `Bearer ${web(ctx).publishable}`, Origin: ORIGIN } };
    },
  },
  {
    name: 'GET /v1/entitlements?userId=…, 10 clients, limiter unmetered',
    connections: 10,
    unmetered: true,
    cpuPair: 'entitlements by user id',
    prepare: async (ctx) => {
      const { userId } = await knownUser(ctx);
      return { method: 'GET', path: `/v1/entitlements?userId=${encodeURIComponent(userId)}`, headers: { Authorization: `Bearer ${web(ctx).publishable}`, Origin: ORIGIN } };
    },
  },
  {
    name: 'floor: bare node:http doing the entitlements read’s store work (a getAll of 2 documents, then of 1), 10 clients',
    connections: 10,
    servedByFloor: true,
    cpuPair: 'entitlements by user id',
    prepare: async () => ({ method: 'GET', path: '/store/reads/2-1' }),
  },
  {
    name: 'GET /v1/entitlements?userId=…, 10 clients each sending 10/s, staggered (limiter unmetered)',
    paced: { clients: 10, perClientPerSecond: 10 },
    unmetered: true,
    floorPair: 'entitlements by user id',
    prepare: async (ctx) => {
      const { userId } = await knownUser(ctx);
      return { method: 'GET', path: `/v1/entitlements?userId=${encodeURIComponent(userId)}`, headers: { Authorization: `Bearer ${web(ctx).publishable}`, Origin: ORIGIN } };
    },
  },
  {
    name: 'store floor of the entitlements read by user id: 10 clients each 10/s, staggered, a getAll of 2 documents then of 1, no server',
    paced: { clients: 10, perClientPerSecond: 10 },
    floorPair: 'entitlements by user id',
    storeOperation: (ctx) => readsStoreFloor(ctx.deps.db, [2, 1]),
  },
  {
    name: 'POST /v1/resolve, recognised device (tier 1), 10 clients (entitlements bucket)',
    note: 'identity document + key re-check in one getAll, then the customer',
    connections: 10,
    prepare: async (ctx) => {
      const { anonymousId } = await knownUser(ctx);
      return { method: 'POST', path: '/v1/resolve', headers: { Authorization: `Bearer ${web(ctx).publishable}`, Origin: ORIGIN }, body: { anonymousId, passkeyAvailable: true } };
    },
  },
];
