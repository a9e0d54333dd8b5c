import type { GrantRecord } from '../../../functions/src/entitlements/model';
import { grantRef, writeProjection } from '../../../functions/src/entitlements/projection';
import type { EnvScope } from '../../../functions/src/store/scope';

/** Stores grants for a customer and its projection, the way the entitlement writers do. */
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
    for (const record of records) tx.set(grantRef(scope, record.grantId), record);
    writeProjection(tx, scope, customerId, records, now);
  });
  return records;
}
