import type { GrantRecord } from '../../../functions/src/entitlements/model';
import { projectionRef, readCustomerGrants } from '../../../functions/src/entitlements/projection';
import { applyGrantChanges } from '../../../functions/src/entitlements/writer';
import type { EnvScope } from '../../../functions/src/store/scope';

/** The cause a seeded change records (no audit entry stands behind it in these suites). */
const SEED_CAUSE = { kind: 'operator', rail: 'manual', auditEventId: 'srv_test_seed', eventType: 'test.seeded' } as const;

/** Stores grants for a customer and its projection, through the one entitlement writer. */
export async function seedGrants(scope: EnvScope, customerId: string, grants: Partial<GrantRecord>[], now: number): Promise<GrantRecord[]> {
  const records: GrantRecord[] = grants.map((g, i) => ({
    grantId: `g_${customerId}_${g.entitlementKey ?? i}_${i}`,
    customerId,
    entitlementKey: `key_${i}`,
    source: { rail: 'manual', productId: 'manual', subscriptionId: `sub_${i}` },
    validUntil: null,
    revokedAt: null,
    createdAt: now,
    updatedAt: now,
    ...g,
  }));
  await scope.runTransaction(async (tx) => {
    const projection = await tx.get(projectionRef(scope, customerId));
    const existing = await readCustomerGrants(tx, scope, customerId);
    applyGrantChanges(tx, scope, { customers: [{ customerId, projection, grants: existing }], changes: records, cause: SEED_CAUSE, now, webhookDirectory: null });
  });
  return records;
}
