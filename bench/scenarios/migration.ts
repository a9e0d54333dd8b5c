import type { BenchContext, Scenario } from '../scenario';

/**
 * `POST /v1/migration/users` with 1,000 fresh rows per request: each row a new developer user
 * with an email, traits and one or two asserted entitlement keys (so every row creates a
 * customer, runs the gate and writes a migration grant, its projection, change record and audit
 * entries). Firebase Hosting cuts a rewrite at 60 s, so one request must finish well inside it.
 */
export const MIGRATION_ROWS = 1000;

let batch = 0;

export function migrationRows(prefix: string, count = MIGRATION_ROWS): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => ({
    developerUserId: `${prefix}_${i}`,
    email: `${prefix}_${i}@example.com`,
    traits: { plan: i % 3 === 0 ? 'team' : 'solo', seats: i % 7 },
    entitlements: { pro: true, sync: i % 2 === 0 },
  }));
}

const secretKey = (ctx: BenchContext) => ctx.project.apps.find((a) => a.platform === 'web')!.keys.test.secret;

export const migrationScenarios: Scenario[] = [
  {
    name: 'POST /v1/migration/users, 1,000 new users per request, 1 client',
    note: 'every row creates a customer and a migration grant (1,000 customers, ~1,500 grants, their projections, change records and audit entries per request); the latency is one whole request',
    connections: 1,
    prepare: async (ctx) => ({
      method: 'POST',
      path: '/v1/migration/users',
      headers: { Authorization: `Bearer ${secretKey(ctx)}` },
      nextBody: () => JSON.stringify({ users: migrationRows(`bench_mig_${Date.now()}_${(batch += 1)}`) }),
    }),
  },
];
