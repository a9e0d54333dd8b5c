import type { Deps } from '../app/deps';
import { productsOfRail } from '../entitlements/catalog';
import { conflictRef, type ConflictRecord } from '../identity/conflictModel';
import type { IdentityKind } from '../identity/model';
import { linkMigratedUser } from '../identity/repository';
import { isStoreContention } from '../store/contention';
import type { EnvScope } from '../store/scope';
import { applyRowEntitlements, registerKeysOnly } from './grants';
import { dispatchWebhookEvents } from '../webhooks/dispatch';
import { migrationLogs } from './logs';
import { checkRow, type MigrationRow } from './rows';
import { StripeSubscriptionReader, type StripeCustomerView } from './stripeSubscriptions';

/**
 * Bulk migration of an existing user base, row by row in order. Each row links its developer
 * user id and rail ids to one customer (matched or freshly created) through the identity
 * repository, then applies its asserted entitlements through the rail-owned gate. A row that
 * is invalid, conflicting or failing is reported and never stops the rows after it.
 */
export interface MigrationCounters {
  totalRows: number;
  matched: number;
  created: number;
  conflicts: number;
  errors: number;
  entitlementsGranted: number;
  entitlementsSkippedRailBacked: number;
  entitlementsSkippedLapsed: number;
  entitlementsUndetermined: number;
  entitlementKeysRegistered: number;
}

export interface MigrationDetails {
  conflicts: { developerUserId: string; railResolutions: Record<string, string>; reason: string }[];
  errors: { rowIndex: number; developerUserId: string | null; reason: string }[];
}

export interface MigrationOutcome extends MigrationCounters {
  details: MigrationDetails;
}

const RAIL_OF_KIND: Record<IdentityKind, string> = {
  developer: 'developer',
  anonymous: 'anonymous',
  stripe: 'stripe',
  apple_otx: 'apple',
  apple_aat: 'apple',
  google_token: 'google',
  google_account: 'google',
};

export async function migrateUsers(deps: Deps, scope: EnvScope, rows: readonly unknown[], requestId: string): Promise<MigrationOutcome> {
  const counters: MigrationCounters = {
    totalRows: rows.length,
    matched: 0,
    created: 0,
    conflicts: 0,
    errors: 0,
    entitlementsGranted: 0,
    entitlementsSkippedRailBacked: 0,
    entitlementsSkippedLapsed: 0,
    entitlementsUndetermined: 0,
    entitlementKeysRegistered: 0,
  };
  const details: MigrationDetails = { conflicts: [], errors: [] };
  const stripe = new StripeSubscriptionReader(deps, scope);
  let stripeCatalog: Promise<Map<string, Set<string>>> | null = null;
  const stripeProductsByKey = () => (stripeCatalog ??= loadStripeCatalog(scope));

  for (let rowIndex = 0; rowIndex < rows.length; rowIndex += 1) {
    const check = checkRow(rows[rowIndex]);
    if (!check.ok) {
      counters.errors += 1;
      details.errors.push({ rowIndex, developerUserId: check.developerUserId, reason: check.reason });
      continue;
    }
    const row = check.row;
    try {
      await migrateRow(deps, scope, row, requestId, counters, details, stripe, stripeProductsByKey);
    } catch (err) {
      migrationLogs.rowFailed(requestId, scope.projectId, scope.env, rowIndex, err instanceof Error ? `${err.name}: ${err.message}` : String(err));
      counters.errors += 1;
      // A row the store refused under contention is worth re-sending as is (rows are idempotent).
      details.errors.push({ rowIndex, developerUserId: row.developerUserId, reason: isStoreContention(err) ? 'rate_limited' : 'processing_failed' });
    }
  }
  migrationLogs.finished(requestId, scope.projectId, scope.env, { ...counters });
  return { ...counters, details };
}

async function migrateRow(
  deps: Deps,
  scope: EnvScope,
  row: MigrationRow,
  requestId: string,
  counters: MigrationCounters,
  details: MigrationDetails,
  stripe: StripeSubscriptionReader,
  stripeProductsByKey: () => Promise<Map<string, Set<string>>>,
): Promise<void> {
  const link = await linkMigratedUser(scope, row.hints, { email: row.email, traits: row.traits }, deps.clock.now());
  if (link.conflictId !== null || link.mergePending) {
    counters.conflicts += 1;
    details.conflicts.push({
      developerUserId: row.developerUserId,
      railResolutions: await railResolutions(scope, link.conflictId),
      reason: 'rail_keys_resolve_to_different_customers',
    });
    counters.entitlementKeysRegistered += (await registerKeysOnly(scope, row.assertedKeys, deps.clock.now())).length;
    return;
  }
  const customerId = link.customerId!;
  if (link.created) counters.created += 1;
  else counters.matched += 1;
  if (row.assertedKeys.length === 0) return;

  let stripeView: StripeCustomerView | null = null;
  let productsByKey = new Map<string, Set<string>>();
  if (row.stripeCustomerId) {
    [stripeView, productsByKey] = await Promise.all([stripe.read(row.stripeCustomerId), stripeProductsByKey()]);
  }
  const result = await applyRowEntitlements(
    scope,
    { customerId, keys: row.assertedKeys, stripe: stripeView, stripeProductsOf: (key) => productsByKey.get(key) ?? new Set(), requestId },
    deps.clock.now(),
  );
  await dispatchWebhookEvents(deps.tasks, scope, result.webhookEventIds);
  counters.entitlementKeysRegistered += result.registeredKeys.length;
  for (const { outcome } of result.outcomes) {
    if (outcome === 'grant') counters.entitlementsGranted += 1;
    else if (outcome === 'rail_backed') counters.entitlementsSkippedRailBacked += 1;
    else if (outcome === 'lapsed') counters.entitlementsSkippedLapsed += 1;
    else if (outcome === 'undetermined') counters.entitlementsUndetermined += 1;
  }
}

/** Which customer each identifier of the conflict resolved to, by rail (`developer`, `stripe`, `apple`, `google`). */
async function railResolutions(scope: EnvScope, conflictId: string | null): Promise<Record<string, string>> {
  if (conflictId === null) return {};
  const snapshot = await scope.get(conflictRef(scope, conflictId));
  if (!snapshot.exists) return {};
  const out: Record<string, string> = {};
  for (const identity of (snapshot.data() as ConflictRecord).identities) out[RAIL_OF_KIND[identity.kind]] ??= identity.customerId;
  return out;
}

/** Stripe products of the catalog, by the entitlement key they unlock. */
async function loadStripeCatalog(scope: EnvScope): Promise<Map<string, Set<string>>> {
  const byKey = new Map<string, Set<string>>();
  for (const product of await productsOfRail(scope, 'stripe')) {
    for (const key of product.entitlementKeys) {
      if (!byKey.has(key)) byKey.set(key, new Set());
      byKey.get(key)!.add(product.productId);
    }
  }
  return byKey;
}
