import type { DocumentSnapshot, Transaction } from 'firebase-admin/firestore';
import type { WebhookFanout } from '../webhooks/dispatch';
import { directoryOf, webhookDirectoryRef, type WebhookDirectory } from '../webhooks/directory';
import { appendAudit, newServerEventId } from '../audit/append';
import { catalogEntitlementRef, registerMissingKeys } from '../entitlements/catalog';
import type { EntitlementCause } from '../entitlements/changeModel';
import { newManualGrant } from '../entitlements/manualGrants';
import type { GrantRecord, ProjectionDoc } from '../entitlements/model';
import { getAllInTx, grantRef, projectionRef, readCustomerGrantsGuarded } from '../entitlements/projection';
import { applyGrantChanges } from '../entitlements/writer';
import { customerRef } from '../customers/refs';
import type { EnvScope } from '../store/scope';
import { inCustomerTurn } from '../store/writeQueue';
import { decideGate, type GateOutcome } from './gate';
import type { StripeCustomerView } from './stripeSubscriptions';
import { readGroupsInTx } from '../store/converters';

/**
 * The entitlement half of one migrated row, in one transaction: runs the gate for each key not
 * migrated before, creates the migration grants, rewrites the projection (through the one writer)
 * and audits every decision. The request registers every asserted key in the catalog once,
 * before its rows (`registerKeys`), so row transactions never touch the shared catalog documents.
 *
 * Idempotence: a migration grant has a deterministic id per customer and key, so a re-run
 * finds it and grants nothing twice, even after the grant was revoked; keys that were skipped
 * or undetermined are decided again (a re-run resolves them).
 */
export type KeyOutcome = GateOutcome | 'already_migrated';

export interface RowEntitlementResult {
  outcomes: { key: string; outcome: KeyOutcome; reason: string }[];
  /** Webhook events recorded with the row's grants, to fan out once committed. */
  webhookFanouts: WebhookFanout[];
}

export const MIGRATION_PRODUCT_ID = 'migration';
export const migrationGrantId = (customerId: string, key: string): string => `mig_${customerId}_${key}`;

const AUDIT_EVENT_TYPE: Record<GateOutcome, string> = {
  grant: 'entitlement.granted_by_migration',
  rail_backed: 'entitlement.migration_skipped',
  lapsed: 'entitlement.migration_skipped',
  undetermined: 'entitlement.migration_undetermined',
};

export interface RowEntitlementInput {
  customerId: string;
  keys: readonly string[];
  stripe: StripeCustomerView | null;
  stripeProductsOf: (key: string) => ReadonlySet<string>;
  requestId: string;
}

/** The row's entitlements in a transaction of their own (a row linked to an existing customer). */
export async function applyRowEntitlements(scope: EnvScope, input: RowEntitlementInput, now: number): Promise<RowEntitlementResult> {
  const { customerId, keys } = input;
  return inCustomerTurn(scope, [customerId], () => scope.runTransaction(async (tx) => {
    const [[customer], [projection], grantSnaps, [webhookDirectory]] = await readGroupsInTx(
      tx,
      [customerRef(scope, customerId)],
      [projectionRef(scope, customerId)],
      keys.map((key) => grantRef(scope, migrationGrantId(customerId, key))),
      [webhookDirectoryRef(scope)],
    );
    if (!customer.exists) throw new Error(`migrated customer ${customerId} vanished before its entitlements were applied`);
    // Grants are written only with their projection (entitlements/writer.ts): no projection, no grants.
    const grants = projection.exists ? await readCustomerGrantsGuarded(scope, customerId) : [];
    return decideRowKeys(tx, scope, input, { projection, grants, migrated: grantSnaps.map((s) => s.exists), webhookDirectory: directoryOf(webhookDirectory) }, now);
  }));
}

/**
 * Gate, audit and grant the row's keys in the caller's transaction, after its reads: the
 * customer's projection and grants, and whether each key's migration grant already exists.
 */
export function decideRowKeys(
  tx: Transaction,
  scope: EnvScope,
  input: RowEntitlementInput,
  state: { projection: DocumentSnapshot<ProjectionDoc>; grants: readonly GrantRecord[]; migrated: readonly boolean[]; webhookDirectory: WebhookDirectory | null },
  now: number,
): RowEntitlementResult {
  const { customerId, keys } = input;
  const outcomes: RowEntitlementResult['outcomes'] = [];
  const created: GrantRecord[] = [];
  const causes = new Map<string, EntitlementCause>();
  keys.forEach((key, i) => {
    if (state.migrated[i]) {
      outcomes.push({ key, outcome: 'already_migrated', reason: 'migration_grant_exists' });
      return;
    }
    const decision = decideGate(key, now, state.grants, input.stripe, input.stripeProductsOf(key));
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
  let webhookFanouts: WebhookFanout[] = [];
  if (created.length > 0) {
    ({ webhookFanouts } = applyGrantChanges(tx, scope, { customers: [{ customerId, projection: state.projection, grants: state.grants }], changes: created, cause: (key) => causes.get(key)!, now, webhookDirectory: state.webhookDirectory }));
  }
  return { outcomes, webhookFanouts };
}

/** Keys per catalog transaction: well under a transaction's 500 writes. */
const KEYS_PER_TRANSACTION = 400;

/**
 * Registers in the catalog every key not registered yet, a few hundred per transaction; returns
 * the keys it registered. Idempotent: a key registered since (by anyone) is left as it is.
 */
export async function registerKeys(scope: EnvScope, keys: readonly string[], now: number): Promise<string[]> {
  const unique = [...new Set(keys)].sort();
  const registered: string[] = [];
  for (let start = 0; start < unique.length; start += KEYS_PER_TRANSACTION) {
    const chunk = unique.slice(start, start + KEYS_PER_TRANSACTION);
    const added = await scope.runTransaction(async (tx) => {
      const existing = await getAllInTx(tx, scope, chunk.map((key) => catalogEntitlementRef(scope, key)));
      return registerMissingKeys(tx, scope, existing, 'migration', now);
    });
    registered.push(...added);
  }
  return registered;
}
