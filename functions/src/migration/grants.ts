import { appendAudit, newServerEventId } from '../audit/append';
import { catalogEntitlementRef, registerMissingKeys } from '../entitlements/catalog';
import type { EntitlementCause } from '../entitlements/changeModel';
import { newManualGrant } from '../entitlements/manualGrants';
import type { GrantRecord } from '../entitlements/model';
import { getAllInTx, grantRef, projectionRef, readCustomerGrantsGuarded } from '../entitlements/projection';
import { applyGrantChanges } from '../entitlements/writer';
import { customerRef } from '../identity/repository';
import type { EnvScope } from '../store/scope';
import { inCustomerTurn } from '../store/writeQueue';
import { decideGate, type GateOutcome } from './gate';
import type { StripeCustomerView } from './stripeSubscriptions';

/**
 * The entitlement half of one migrated row, in one transaction: registers the asserted keys in
 * the catalog, runs the gate for each key not migrated before, creates the migration grants,
 * rewrites the projection and audits every decision.
 *
 * Idempotence: a migration grant has a deterministic id per customer and key, so a re-run
 * finds it and grants nothing twice, even after the grant was revoked; keys that were skipped
 * or undetermined are decided again (a re-run resolves them).
 */
export type KeyOutcome = GateOutcome | 'already_migrated';

export interface RowEntitlementResult {
  outcomes: { key: string; outcome: KeyOutcome; reason: string }[];
  registeredKeys: string[];
  /** Webhook events recorded with the row's grants, to fan out once committed. */
  webhookEventIds: string[];
}

export const MIGRATION_PRODUCT_ID = 'migration';
export const migrationGrantId = (customerId: string, key: string): string => `mig_${customerId}_${key}`;

const AUDIT_EVENT_TYPE: Record<GateOutcome, string> = {
  grant: 'entitlement.granted_by_migration',
  rail_backed: 'entitlement.migration_skipped',
  lapsed: 'entitlement.migration_skipped',
  undetermined: 'entitlement.migration_undetermined',
};

export async function applyRowEntitlements(
  scope: EnvScope,
  input: { customerId: string; keys: readonly string[]; stripe: StripeCustomerView | null; stripeProductsOf: (key: string) => ReadonlySet<string>; requestId: string },
  now: number,
): Promise<RowEntitlementResult> {
  const { customerId, keys } = input;
  return inCustomerTurn(scope, [customerId], () => scope.runTransaction(async (tx) => {
    const snapshots = await getAllInTx(tx, scope, [
      customerRef(scope, customerId),
      projectionRef(scope, customerId),
      ...keys.map((key) => grantRef(scope, migrationGrantId(customerId, key))),
      ...keys.map((key) => catalogEntitlementRef(scope, key)),
    ]);
    if (!snapshots[0].exists) throw new Error(`migrated customer ${customerId} vanished before its entitlements were applied`);
    const migrated = snapshots.slice(2, 2 + keys.length);
    const catalogEntries = snapshots.slice(2 + keys.length);
    const grants = await readCustomerGrantsGuarded(scope, customerId);

    const outcomes: RowEntitlementResult['outcomes'] = [];
    const created: GrantRecord[] = [];
    const causes = new Map<string, EntitlementCause>();
    keys.forEach((key, i) => {
      if (migrated[i].exists) {
        outcomes.push({ key, outcome: 'already_migrated', reason: 'migration_grant_exists' });
        return;
      }
      const decision = decideGate(key, now, grants, input.stripe, input.stripeProductsOf(key));
      outcomes.push({ key, ...decision });
      let grantId: string | null = null;
      if (decision.outcome === 'grant') {
        grantId = migrationGrantId(customerId, key);
        created.push(newManualGrant(grantId, customerId, key, MIGRATION_PRODUCT_ID, null, now));
      }
      const eventId = newServerEventId('migration');
      causes.set(key, { kind: 'operator', rail: 'manual', auditEventId: eventId, eventType: AUDIT_EVENT_TYPE[decision.outcome] });
      appendAudit(tx, scope, {
        eventId,
        rail: 'manual',
        eventType: AUDIT_EVENT_TYPE[decision.outcome],
        customerId,
        subscriptionId: grantId,
        decision: decision.outcome === 'grant' ? 'applied' : 'no_op',
        reason: decision.reason,
        fromState: null,
        toState: decision.outcome === 'grant' ? 'active' : decision.outcome,
        signatureVerified: false,
        reconciledWithProvider: input.stripe?.readable === true,
        rawEventReceivedAt: now,
        processedAt: now,
        details: { surface: 'migration', requestId: input.requestId, entitlementKey: key },
      });
    });
    const registeredKeys = registerMissingKeys(tx, scope, catalogEntries, 'migration', now);
    let webhookEventIds: string[] = [];
    if (created.length > 0) {
      const projection = snapshots[1];
      ({ webhookEventIds } = applyGrantChanges(tx, scope, { customers: [{ customerId, projection, grants }], changes: created, cause: (key) => causes.get(key)!, now }));
    }
    return { outcomes, registeredKeys, webhookEventIds };
  }));
}

/** Registers asserted keys of a row whose entitlements are not applied (a conflicting row). */
export async function registerKeysOnly(scope: EnvScope, keys: readonly string[], now: number): Promise<string[]> {
  if (keys.length === 0) return [];
  return scope.runTransaction(async (tx) => {
    const existing = await getAllInTx(tx, scope, keys.map((key) => catalogEntitlementRef(scope, key)));
    return registerMissingKeys(tx, scope, existing, 'migration', now);
  });
}
