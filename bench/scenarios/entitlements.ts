import { grantManually } from '#functions/entitlements/manualGrants';
import { linkHints } from '#functions/identity/repository';
import { EnvScope } from '#functions/store/scope';
import { readsStoreFloor } from '../floor';
import type { BenchContext, Scenario } from '../scenario';

/**
 * Server grant and server read. Each scenario works on one customer of its own project: the
 * grant rotates over 20 entitlement keys (a new grant, then extensions), every request one
 * transaction that reads the customer, the projection and the customer's grants and writes the
 * grant, the projection and the audit entry; the read is one `getAll` of customer and projection.
 */
const REASON = 'Benchmark grant: goodwill credit for support ticket';

async function customerWithEntitlements(ctx: BenchContext): Promise<{ customerId: string; secret: string }> {
  const scope = new EnvScope(ctx.deps.db, ctx.project.projectId, 'test');
  const now = ctx.deps.clock.now();
  const { customerId } = await linkHints(scope, [{ kind: 'developer', id: `bench-user-${now}` }], 'self_asserted', now);
  for (const key of ['pro', 'sync', 'team_seats']) {
    await grantManually(scope, { customerId: customerId!, entitlementKey: key, duration: 'P1Y', reason: REASON }, { requestId: 'bench', keyId: 'bench' }, now);
  }
  return { customerId: customerId!, secret: ctx.project.apps.find((app) => app.platform === 'web')!.keys.test.secret };
}

let sequence = 0;

export const entitlementScenarios: Scenario[] = [
  {
    name: 'POST /v1/server/customers/{id}/grant, one customer, 1 client',
    note: 'one transaction per grant; grants to one customer serialise on its projection document',
    connections: 1,
    prepare: async (ctx) => {
      const { customerId, secret } = await customerWithEntitlements(ctx);
      return {
        method: 'POST',
        path: `/v1/server/customers/${customerId}/grant`,
        headers: { Authorization: `Bearer ${secret}` },
        nextBody: () => JSON.stringify({ entitlementKey: `bench_key_${(sequence += 1) % 20}`, duration: 'P30D', reason: REASON }),
      };
    },
  },
  {
    name: 'contention: grant/revoke on one customer, 20 clients',
    note:
      'every request changes the same customer: grants and revokes of 20 keys in turn (a key is revoked 20 requests after its grant); they queue fairly on the instance (store/writeQueue.ts) instead of racing into its transaction',
    connections: 20,
    prepare: async (ctx) => {
      const { customerId, secret } = await customerWithEntitlements(ctx);
      let n = 0;
      return {
        method: 'POST',
        path: `/v1/server/customers/${customerId}/grant`,
        headers: { Authorization: `Bearer ${secret}` },
        nextRequest: () => {
          const step = n++ % 40;
          const entitlementKey = `contended_${step % 20}`;
          return step < 20
            ? { path: `/v1/server/customers/${customerId}/grant`, body: JSON.stringify({ entitlementKey, duration: 'P30D', reason: REASON }) }
            : { path: `/v1/server/customers/${customerId}/revoke`, body: JSON.stringify({ entitlementKey, reason: REASON }) };
        },
      };
    },
  },
  {
    name: 'GET /v1/server/customers/{id}/entitlements, 10 clients',
    note: 'customer and projection in one getAll',
    connections: 10,
    cpuPair: 'server read',
    prepare: async (ctx) => {
      const { customerId, secret } = await customerWithEntitlements(ctx);
      return { method: 'GET', path: `/v1/server/customers/${customerId}/entitlements`, headers: { Authorization: `Bearer ${secret}` } };
    },
  },
  {
    name: 'floor: bare node:http doing the server read’s store work (one getAll of 3 documents), 10 clients',
    connections: 10,
    servedByFloor: true,
    cpuPair: 'server read',
    prepare: async () => ({ method: 'GET', path: '/store/reads/3' }),
  },
  {
    name: 'GET /v1/server/customers/{id}/entitlements, 10 clients each sending 10/s, staggered (limiter unmetered)',
    paced: { clients: 10, perClientPerSecond: 10 },
    unmetered: true,
    floorPair: 'server read',
    prepare: async (ctx) => {
      const { customerId, secret } = await customerWithEntitlements(ctx);
      return { method: 'GET', path: `/v1/server/customers/${customerId}/entitlements`, headers: { Authorization: `Bearer ${secret}` } };
    },
  },
  {
    name: 'store floor of the server read: 10 clients each 10/s, staggered, one getAll of 3 documents, no server',
    paced: { clients: 10, perClientPerSecond: 10 },
    floorPair: 'server read',
    storeOperation: (ctx) => readsStoreFloor(ctx.deps.db, [3]),
  },
];
