import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { Clock } from '../../clock';
import { deployRegion } from '../../config/region';
import { loadSettings } from '../../config/settings';
import type { MigrationDeps } from '../../migration/deps';
import { MAX_MIGRATION_ROWS } from '../../migration/rows';
import { migrateUsers, zeroRowCounters } from '../../migration/service';
import { getProject } from '../../projects/repository';
import { createRailEdges } from '../../rails/edges';
import { createSecretStore } from '../../secrets/store';
import { ENVS } from '../../store/env';
import { EnvScope } from '../../store/scope';
import type { TaskQueue } from '../../tasks/queue';
import { optionalString, requireOneOf, requireString, type Command, type ProgressOutput } from '../command';
import { parseMigrationInput } from '../migrateInput';
import { loadState, saveState, type MigrationState, type MigrationTotals, type RowNote } from '../migrateState';
import { OperatorError } from '../operatorError';
import { renderTable } from '../table';

/**
 * `tessera migrate --file users.jsonl|users.csv --project ID --env test|live`: the file's rows
 * through the migration service (`POST /v1/migration/users`'s rules, idempotent per row) in
 * batches of 1,000, with a progress bar on a terminal (a plain line per batch otherwise), resumable
 * (the progress file, migrateState.ts) and a summary naming every refused row by its line, and why.
 */
export interface MigrateSummary extends MigrationTotals {
  object: 'migration_summary';
  target: string | null;
  projectId: string;
  env: string;
  file: string;
  rows: number;
  batches: number;
  /** Batches already done by an earlier, interrupted run of the same file (0: a fresh run). */
  resumedAfterBatches: number;
  stateFile: string;
  /** Every row not migrated, by its line in the file, and why (the API's reasons, or the file's). */
  refusedRows: RowNote[];
  /** Rows whose identifiers belong to different customers: reported, never merged. */
  conflictRows: RowNote[];
}

/**
 * Webhook events of the migrated grants: locally they stay in the outbox, where the running
 * stack's relay (webhooks/relay.ts) fans them out within a minute; deployed, Cloud Tasks does.
 */
class LeftToRelayQueue implements TaskQueue {
  async enqueue(): Promise<'enqueued'> {
    return 'enqueued';
  }
}

async function cliMigrationDeps(clock: Clock, given?: TaskQueue): Promise<MigrationDeps> {
  const production = !process.env.FIRESTORE_EMULATOR_HOST;
  const settings = loadSettings();
  let tasks = given;
  if (!tasks) tasks = production ? new (await import('../../tasks/cloudTasksQueue')).CloudTasksQueue(deployRegion()) : new LeftToRelayQueue();
  // The Stripe secret the gate reads: Secret Manager for a production project, the local store otherwise.
  const secrets = createSecretStore(clock, { ...process.env, TESSERA_SECRET_STORE: process.env.TESSERA_SECRET_STORE || (production ? 'secret-manager' : 'local') });
  return { clock, tasks, secrets, rails: createRailEdges({}, settings) };
}

function batchSizeOf(text: string | undefined): number {
  if (text === undefined) return MAX_MIGRATION_ROWS;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > MAX_MIGRATION_ROWS) throw new OperatorError('invalid_argument', `--batch-size must be an integer from 1 to ${MAX_MIGRATION_ROWS}.`);
  return Number(text);
}

/** A bar on a terminal, redrawn in place; a line per batch elsewhere. */
function progressReporter(out: ProgressOutput | undefined, rows: number, batches: number) {
  return (batchesDone: number, rowsDone: number, totals: MigrationTotals): void => {
    if (!out) return;
    if (out.isTTY) {
      const width = 30;
      const filled = rows === 0 ? width : Math.round((rowsDone / rows) * width);
      out.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${rowsDone}/${rows} rows, batch ${batchesDone}/${batches}, ${totals.errors} refused${batchesDone === batches ? '\n' : ''}`);
    } else {
      out.write(`batch ${batchesDone}/${batches}: ${rowsDone}/${rows} rows sent (${totals.created} created, ${totals.matched} matched, ${totals.conflicts} conflicts, ${totals.errors} refused)\n`);
    }
  };
}

export const migrateCommands: Command[] = [
  {
    name: 'migrate',
    summary: '--file users.jsonl|users.csv --project ID --env test|live [--batch-size N] [--state FILE] [--restart] [--format table|json]',
    options: { file: { type: 'string' }, project: { type: 'string' }, env: { type: 'string' }, 'batch-size': { type: 'string' }, state: { type: 'string' }, restart: { type: 'boolean' } },
    async run(values, { db, clock, progress, target, tasks }): Promise<MigrateSummary> {
      const file = resolve(requireString(values, 'file'));
      const projectId = requireString(values, 'project');
      const env = requireOneOf(values, 'env', ENVS);
      const batchSize = batchSizeOf(optionalString(values, 'batch-size'));
      const stateFile = resolve(optionalString(values, 'state') ?? `${file}.tessera-state.json`);
      const bytes = await readFile(file).catch((err: NodeJS.ErrnoException) => {
        throw new OperatorError('invalid_argument', `Cannot read --file ${file}: ${err.code ?? err.message}.`);
      });
      const entries = parseMigrationInput(basename(file), bytes.toString('utf8'));
      await getProject(db, projectId);

      const identity = { inputSha256: createHash('sha256').update(bytes).digest('hex'), projectId, env, batchSize };
      const resumed = values.restart === true ? null : loadState(stateFile, identity);
      const state: MigrationState = resumed ?? {
        version: 1,
        ...identity,
        batchesDone: 0,
        totals: zeroRowCounters(),
        refused: entries.flatMap((e) => ('unreadable' in e ? [{ line: e.line, developerUserId: null, reason: e.unreadable }] : [])),
        conflicts: [],
        finishedAt: null,
      };
      if (!resumed) state.totals.errors = state.refused.length;
      const sendable = entries.flatMap((e) => ('row' in e ? [e] : []));
      const batches = Math.ceil(sendable.length / batchSize);
      const report = progressReporter(progress, sendable.length, batches);
      const resumedAfterBatches = state.batchesDone;
      saveState(stateFile, state);

      const deps = await cliMigrationDeps(clock, tasks);
      const scope = new EnvScope(db, projectId, env);
      for (let batch = state.batchesDone; batch < batches; batch += 1) {
        const slice = sendable.slice(batch * batchSize, (batch + 1) * batchSize);
        const outcome = await migrateUsers(deps, scope, slice.map((e) => e.row), `cli_migrate_${randomBytes(8).toString('hex')}`);
        for (const field of Object.keys(state.totals) as (keyof MigrationTotals)[]) state.totals[field] += outcome[field];
        for (const error of outcome.details.errors) state.refused.push({ line: slice[error.rowIndex].line, developerUserId: error.developerUserId, reason: error.reason });
        for (const conflict of outcome.details.conflicts) {
          const entry = slice.find((e) => e.row.developerUserId === conflict.developerUserId);
          state.conflicts.push({ line: entry?.line ?? 0, developerUserId: conflict.developerUserId, reason: conflict.reason });
        }
        state.batchesDone = batch + 1;
        saveState(stateFile, state);
        report(state.batchesDone, Math.min(state.batchesDone * batchSize, sendable.length), state.totals);
      }
      if (state.finishedAt === null) {
        state.finishedAt = clock.now();
        saveState(stateFile, state);
      }
      return {
        object: 'migration_summary',
        target: target ?? null,
        projectId,
        env,
        file,
        rows: entries.length,
        batches,
        resumedAfterBatches,
        stateFile,
        ...state.totals,
        refusedRows: [...state.refused].sort((a, b) => a.line - b.line),
        conflictRows: state.conflicts,
      };
    },
    table(result) {
      const s = result as MigrateSummary;
      const lines = [
        `Migrated ${s.file} into ${s.projectId} (${s.env})${s.target ? ` on ${s.target}` : ''}${s.resumedAfterBatches > 0 ? `, resumed after batch ${s.resumedAfterBatches}` : ''}`,
        renderTable(
          ['rows', 'created', 'matched', 'conflicts', 'refused', 'granted', 'rail-backed', 'lapsed', 'undetermined', 'keys registered'],
          [[s.rows, s.created, s.matched, s.conflicts, s.errors, s.entitlementsGranted, s.entitlementsSkippedRailBacked, s.entitlementsSkippedLapsed, s.entitlementsUndetermined, s.entitlementKeysRegistered]],
        ),
      ];
      if (s.refusedRows.length > 0) lines.push('Refused rows', renderTable(['line', 'developerUserId', 'reason'], s.refusedRows.map((r) => [r.line, r.developerUserId, r.reason])));
      if (s.conflictRows.length > 0) lines.push('Conflicts (never merged: resolve with tessera conflicts list|resolve)', renderTable(['line', 'developerUserId', 'reason'], s.conflictRows.map((r) => [r.line, r.developerUserId, r.reason])));
      lines.push(`Progress kept in ${s.stateFile} (run again to resume; --restart to start over).`);
      return `${lines.join('\n')}\n`;
    },
  },
];
