import type { MigrationDeps } from './deps';
import { productsOfRail } from '../entitlements/catalog';
import { conflictRef } from '../identity/conflictModel';
import { identityDocId, type IdentityKind } from '../customers/model';
import { linkMigratedUser } from '../identity/repository';
import { isStoreContention } from '../store/contention';
import type { EnvScope } from '../store/scope';
import { applyRowEntitlements, registerKeys } from './grants';
import { migrateNewUsers, type NewUserRow } from './newUsers';
import type { RowResult } from './rowResult';
import { runRowsInTurn } from './rowTurns';
import { dispatchWebhookEvents } from '../webhooks/dispatch';
import { migrationLogs } from './logs';
import { checkRow, type MigrationRow } from './rows';
import { StripeSubscriptionReader, type StripeCustomerView } from './stripeSubscriptions';
import type { MigrationDetails } from '../wire/migration';

/**
 * Bulk migration of an existing user base. Each row links its developer user id and rail ids to
 * one customer (matched or freshly created) through the identity repository, then applies its
 * asserted entitlements through the rail-owned gate. A row that is invalid, conflicting or
 * failing is reported and never stops the other rows.
 *
 * Rows run several at a time (`runRowsInTurn`): rows that share an identifier keep the request's
 * order, so the outcome is the one row-by-row processing gives; every asserted key is registered
 * in the catalog once, before the rows. Results are reported in row order.
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


export interface MigrationOutcome extends MigrationCounters {
  details: MigrationDetails;
}

/**
 * Rows in flight at once. Measured on the emulator (docs/benchmarks.md): 1,000 rows take about
 * 55 s one by one; more rows in flight stop helping once the store's CPU is the limit.
 */
export const MIGRATION_ROW_CONCURRENCY = 16;

const RAIL_OF_KIND: Record<IdentityKind, string> = {
  developer: 'developer',
  anonymous: 'anonymous',
  stripe: 'stripe',
  apple_otx: 'apple',
  apple_aat: 'apple',
  google_token: 'google',
  google_account: 'google',
};

export async function migrateUsers(deps: MigrationDeps, scope: EnvScope, rows: readonly unknown[], requestId: string): Promise<MigrationOutcome> {
  const results: RowResult[] = new Array(rows.length);
  const valid: { rowIndex: number; row: MigrationRow }[] = [];
  rows.forEach((input, rowIndex) => {
    const check = checkRow(input);
    if (check.ok) valid.push({ rowIndex, row: check.row });
    else results[rowIndex] = { kind: 'refused', developerUserId: check.developerUserId, reason: check.reason };
  });
  const registeredKeys = await registerKeys(scope, valid.flatMap(({ row }) => row.assertedKeys), deps.clock.now());

  const stripe = new StripeSubscriptionReader(deps, scope);
  let stripeCatalog: Promise<Map<string, Set<string>>> | null = null;
  const stripeProductsByKey = () => (stripeCatalog ??= loadStripeCatalog(scope));

  // Rows whose identifiers no other row names may be new users: created many per transaction.
  const named = new Map<string, number>();
  for (const { row } of valid) for (const key of hintKeys(row)) named.set(key, (named.get(key) ?? 0) + 1);
  const candidates = valid.filter(({ row }) => hintKeys(row).every((key) => named.get(key) === 1));
  const newUserRows: NewUserRow[] = [];
  const views = new Map<number, StripeView>();
  await runRowsInTurn(candidates, () => [], MIGRATION_ROW_CONCURRENCY, async ({ rowIndex, row }) => {
    const view = await stripeViewOf(row, stripe, stripeProductsByKey);
    views.set(rowIndex, view);
    newUserRows.push({ rowIndex, row, ...view });
  });
  newUserRows.sort((a, b) => a.rowIndex - b.rowIndex);
  for (const [rowIndex, result] of await migrateNewUsers(deps, scope, newUserRows, requestId)) results[rowIndex] = result;

  // Everything else (known users, duplicated identifiers, rows of a failed transaction): row by row.
  await runRowsInTurn(
    valid.filter(({ rowIndex }) => results[rowIndex] === undefined),
    ({ row }) => hintKeys(row),
    MIGRATION_ROW_CONCURRENCY,
    async ({ rowIndex, row }) => {
      try {
        results[rowIndex] = await migrateRow(deps, scope, row, requestId, () => views.get(rowIndex) ?? stripeViewOf(row, stripe, stripeProductsByKey));
      } catch (err) {
        migrationLogs.rowFailed(requestId, scope.projectId, scope.env, rowIndex, err instanceof Error ? `${err.name}: ${err.message}` : String(err));
        // A row the store refused under contention is worth re-sending as is (rows are idempotent).
        results[rowIndex] = { kind: 'refused', developerUserId: row.developerUserId, reason: isStoreContention(err) ? 'rate_limited' : 'processing_failed' };
      }
    },
  );
  const outcome = tally(results, registeredKeys.length);
  const { details, ...counters } = outcome;
  migrationLogs.finished(requestId, scope.projectId, scope.env, counters);
  return outcome;
}

/** Every counter of a migration's rows at zero (the CLI starts its running totals from it too). */
export const zeroRowCounters = (): Omit<MigrationCounters, 'totalRows'> => ({
  matched: 0,
  created: 0,
  conflicts: 0,
  errors: 0,
  entitlementsGranted: 0,
  entitlementsSkippedRailBacked: 0,
  entitlementsSkippedLapsed: 0,
  entitlementsUndetermined: 0,
  entitlementKeysRegistered: 0,
});

/** The response's counters and details, rows in request order. */
function tally(results: readonly RowResult[], keysRegistered: number): MigrationOutcome {
  const outcome: MigrationOutcome = {
    totalRows: results.length,
    ...zeroRowCounters(),
    entitlementKeysRegistered: keysRegistered,
    details: { conflicts: [], errors: [] },
  };
  results.forEach((result, rowIndex) => {
    if (result.kind === 'refused') {
      outcome.errors += 1;
      outcome.details.errors.push({ rowIndex, developerUserId: result.developerUserId, reason: result.reason });
    } else if (result.kind === 'conflict') {
      outcome.conflicts += 1;
      outcome.details.conflicts.push({ developerUserId: result.developerUserId, railResolutions: result.railResolutions, reason: 'rail_keys_resolve_to_different_customers' });
    } else {
      if (result.created) outcome.created += 1;
      else outcome.matched += 1;
      for (const key of result.outcomes) {
        if (key === 'grant') outcome.entitlementsGranted += 1;
        else if (key === 'rail_backed') outcome.entitlementsSkippedRailBacked += 1;
        else if (key === 'lapsed') outcome.entitlementsSkippedLapsed += 1;
        else if (key === 'undetermined') outcome.entitlementsUndetermined += 1;
      }
    }
  });
  return outcome;
}

async function migrateRow(
  deps: MigrationDeps,
  scope: EnvScope,
  row: MigrationRow,
  requestId: string,
  stripeView: () => StripeView | Promise<StripeView>,
): Promise<RowResult> {
  const link = await linkMigratedUser(scope, row.hints, { email: row.email, traits: row.traits }, deps.clock.now());
  if (link.conflictId !== null || link.mergePending) {
    return { kind: 'conflict', developerUserId: row.developerUserId, railResolutions: await railResolutions(scope, link.conflictId) };
  }
  const customerId = link.customerId!;
  if (row.assertedKeys.length === 0) return { kind: 'linked', created: link.created, outcomes: [] };

  const { stripe, stripeProductsOf } = await stripeView();
  const result = await applyRowEntitlements(
    scope,
    { customerId, keys: row.assertedKeys, stripe, stripeProductsOf, requestId },
    deps.clock.now(),
  );
  await dispatchWebhookEvents(deps.tasks, scope, result.webhookFanouts);
  return { kind: 'linked', created: link.created, outcomes: result.outcomes.map(({ outcome }) => outcome) };
}

type StripeView = { stripe: StripeCustomerView | null; stripeProductsOf: (key: string) => ReadonlySet<string> };

const hintKeys = (row: MigrationRow): string[] => row.hints.map((hint) => identityDocId(hint.kind, hint.id));

/** The card processor's view of the row's customer (read before any transaction), when the row names one with keys to decide. */
async function stripeViewOf(
  row: MigrationRow,
  stripe: StripeSubscriptionReader,
  stripeProductsByKey: () => Promise<Map<string, Set<string>>>,
): Promise<StripeView> {
  if (!row.stripeCustomerId || row.assertedKeys.length === 0) return { stripe: null, stripeProductsOf: () => new Set() };
  const [view, productsByKey] = await Promise.all([stripe.read(row.stripeCustomerId), stripeProductsByKey()]);
  return { stripe: view, stripeProductsOf: (key) => productsByKey.get(key) ?? new Set() };
}

/** Which customer each identifier of the conflict resolved to, by rail (`developer`, `stripe`, `apple`, `google`). */
async function railResolutions(scope: EnvScope, conflictId: string | null): Promise<Record<string, string>> {
  if (conflictId === null) return {};
  const snapshot = await scope.get(conflictRef(scope, conflictId));
  if (!snapshot.exists) return {};
  const out: Record<string, string> = {};
  for (const identity of snapshot.data()!.identities) out[RAIL_OF_KIND[identity.kind]] ??= identity.customerId;
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
