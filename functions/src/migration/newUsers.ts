import type { MigrationDeps } from './deps';
import { directoryOf, webhookDirectoryRef } from '../webhooks/directory';
import { projectionRef } from '../entitlements/projection';
import { createFreshCustomer } from '../identity/freshCustomers';
import { identityDocId, newCustomerId } from '../customers/model';
import { identityRef } from '../customers/refs';
import { runIdentityTransaction } from '../identity/transactions';
import type { EnvScope } from '../store/scope';
import { writeKeys, writeQueue } from '../store/writeQueue';
import { dispatchWebhookEvents, type WebhookFanout } from '../webhooks/dispatch';
import { decideRowKeys } from './grants';
import { migrationLogs } from './logs';
import type { RowResult } from './rowResult';
import type { MigrationRow } from './rows';
import type { StripeCustomerView } from './stripeSubscriptions';
import { readGroupsInTx } from '../store/converters';

/**
 * The fast path of a migration: rows whose identifiers are all unknown (new users, the bulk of a
 * first migration) are created many per transaction instead of two transactions each. One
 * transaction reads every identifier of its rows in one `getAll`; each row none of whose
 * identifiers is indexed gets its customer and index entries (`create()`: a racing writer fails
 * the transaction rather than being linked twice), its gate decisions, audit entries and
 * migration grants through the one writer, exactly as the row-by-row path would for a new user.
 * A row with a known identifier is left out (no result): the caller runs it row by row, as it
 * does every row of a transaction that failed.
 *
 * The caller only passes rows whose identifiers no other row of the request names, with the
 * card processor's view of the row's customer already read (never inside a transaction).
 */
export interface NewUserRow {
  rowIndex: number;
  row: MigrationRow;
  stripe: StripeCustomerView | null;
  stripeProductsOf: (key: string) => ReadonlySet<string>;
}

/** Rows per transaction, and the writes one may hold (a commit takes at most 500). */
export const NEW_USERS_PER_TRANSACTION = 20;
const WRITES_PER_TRANSACTION = 450;

/**
 * Writes one new user may cost: its customer and index entries, and per asserted key a grant, a
 * change record, a webhook event, an audit entry and the subscriber rollups (day, month, year),
 * plus its projection.
 */
const writesOf = (row: MigrationRow): number => 1 + row.hints.length + 1 + row.assertedKeys.length * 7;
/** Transactions in flight at once. */
export const NEW_USER_TRANSACTIONS_IN_FLIGHT = 4;

export async function migrateNewUsers(deps: MigrationDeps, scope: EnvScope, rows: readonly NewUserRow[], requestId: string): Promise<Map<number, RowResult>> {
  const results = new Map<number, RowResult>();
  const chunks: NewUserRow[][] = [];
  let writes = 0;
  for (const row of rows) {
    const current = chunks[chunks.length - 1];
    if (!current || current.length >= NEW_USERS_PER_TRANSACTION || writes + writesOf(row.row) > WRITES_PER_TRANSACTION) {
      chunks.push([row]);
      writes = writesOf(row.row);
    } else {
      current.push(row);
      writes += writesOf(row.row);
    }
  }
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < chunks.length) {
      const chunk = chunks[next];
      next += 1;
      try {
        for (const [rowIndex, result] of await migrateChunk(deps, scope, chunk, requestId)) results.set(rowIndex, result);
      } catch (err) {
        // Nothing of the chunk was written: its rows go row by row (the caller's slow path).
        migrationLogs.chunkFailed(requestId, scope.projectId, scope.env, chunk.length, err instanceof Error ? `${err.name}: ${err.message}` : String(err));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(NEW_USER_TRANSACTIONS_IN_FLIGHT, chunks.length) }, worker));
  return results;
}

async function migrateChunk(deps: MigrationDeps, scope: EnvScope, chunk: readonly NewUserRow[], requestId: string): Promise<Map<number, RowResult>> {
  const now = deps.clock.now();
  // Writers of these identifiers on this instance take turns (store/writeQueue.ts), as linkIdentities does.
  const queueKeys = chunk.flatMap(({ row }) => row.hints.map((hint) => writeKeys.identity(scope, identityDocId(hint.kind, hint.id))));
  const { results, webhookFanouts } = await writeQueue.run(queueKeys, () =>
    runIdentityTransaction(scope, async (tx) => {
      const customerIds = chunk.map(() => newCustomerId());
      const indexRefs = chunk.flatMap(({ row }) => row.hints.map((hint) => identityRef(scope, hint.kind, hint.id)));
      const [snapshots, projections, [webhookDirectory]] = await readGroupsInTx(tx, indexRefs, customerIds.map((id) => projectionRef(scope, id)), [webhookDirectoryRef(scope)]);
      const directory = directoryOf(webhookDirectory);
      const out = new Map<number, RowResult>();
      const fanouts: WebhookFanout[] = [];
      let offset = 0;
      chunk.forEach(({ rowIndex, row, stripe, stripeProductsOf }, i) => {
        const indexSnapshots = snapshots.slice(offset, offset + row.hints.length);
        offset += row.hints.length;
        const customerId = customerIds[i];
        if (!createFreshCustomer(tx, scope, customerId, { hints: row.hints, indexSnapshots, profile: { email: row.email, traits: row.traits } }, 'self_asserted', now)) return;
        const decided = decideRowKeys(
          tx,
          scope,
          { customerId, keys: row.assertedKeys, stripe, stripeProductsOf, requestId },
          { projection: projections[i], grants: [], migrated: row.assertedKeys.map(() => false), webhookDirectory: directory },
          now,
        );
        fanouts.push(...decided.webhookFanouts);
        out.set(rowIndex, { kind: 'linked', created: true, outcomes: decided.outcomes.map(({ outcome }) => outcome) });
      });
      return { results: out, webhookFanouts: fanouts };
    }),
  );
  await dispatchWebhookEvents(deps.tasks, scope, webhookFanouts);
  return results;
}
