import { linkHints } from '../../functions/src/identity/repository';
import type { GrantRecord } from '../../functions/src/entitlements/model';
import type { Rail } from '../../functions/src/wire/vocabulary';
import { projectionRef, readCustomerGrants } from '../../functions/src/entitlements/projection';
import { applyGrantChanges } from '../../functions/src/entitlements/writer';
import { EnvScope } from '../../functions/src/store/scope';
import type { Env } from '../../functions/src/store/env';
import type { SeededProject, TestService } from '../support/harness';

/** Shared setup of the entitlement suites: customers through the identity repository, rail grants as the rails record them. */
export function scopeOf(service: TestService, project: SeededProject, env: Env = 'test'): EnvScope {
  return new EnvScope(service.deps.db, project.projectId, env);
}

let counter = 0;
export async function newCustomer(service: TestService, project: SeededProject, env: Env = 'test'): Promise<string> {
  counter += 1;
  const { customerId } = await linkHints(scopeOf(service, project, env), [{ kind: 'developer', id: `user_${Date.now()}_${counter}` }], 'self_asserted', service.clock.now());
  return customerId!;
}

/** A rail-derived grant written through the one entitlement writer, as a rail records one. */
export async function seedRailGrant(
  service: TestService,
  project: SeededProject,
  customerId: string,
  entitlementKey: string,
  options: { rail?: Exclude<Rail, 'manual'>; validUntil?: number | null; env?: Env } = {},
): Promise<GrantRecord> {
  const scope = scopeOf(service, project, options.env);
  const now = service.clock.now();
  counter += 1;
  const grant: GrantRecord = {
    grantId: `rail_${options.rail ?? 'stripe'}_${counter}`,
    customerId,
    entitlementKey,
    source: { rail: options.rail ?? 'stripe', productId: 'prod_test', subscriptionId: `sub_${counter}` },
    validUntil: options.validUntil === undefined ? now + 30 * 86_400_000 : options.validUntil,
    revokedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await scope.runTransaction(async (tx) => {
    const projection = await tx.get(projectionRef(scope, customerId));
    const grants = await readCustomerGrants(tx, scope, customerId);
    const cause = { kind: 'rail' as const, rail: grant.source.rail, auditEventId: `evt_seed_${grant.grantId}`, eventType: 'test.seeded' };
    applyGrantChanges(tx, scope, { customers: [{ customerId, projection, grants }], changes: [grant], cause, now, webhookDirectory: null });
  });
  return grant;
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
export const REASON = 'Goodwill credit after the outage of March';
