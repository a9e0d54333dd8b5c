import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { MigrationCounters } from '../migration/service';
import { OperatorError } from './operatorError';

/**
 * The progress of one `tessera migrate` run, kept next to the input after every batch, so an
 * interrupted run resumes at its first unfinished batch. Batches are idempotent on the server
 * (deterministic ids), so a batch sent again after a crash between its commit and this file's
 * write is harmless. A progress file belongs to one input (by content hash), project,
 * environment and batch size: anything else is refused rather than resumed.
 */
export interface RowNote {
  line: number;
  developerUserId: string | null;
  reason: string;
}

/** The server's counters without its row count (the CLI counts rows itself, across batches). */
export type MigrationTotals = Omit<MigrationCounters, 'totalRows'>;

export interface MigrationState {
  version: 1;
  inputSha256: string;
  projectId: string;
  env: string;
  batchSize: number;
  batchesDone: number;
  totals: MigrationTotals;
  refused: RowNote[];
  conflicts: RowNote[];
  finishedAt: number | null;
}

export function loadState(path: string, expected: Pick<MigrationState, 'inputSha256' | 'projectId' | 'env' | 'batchSize'>): MigrationState | null {
  if (!existsSync(path)) return null;
  let state: MigrationState;
  try {
    state = JSON.parse(readFileSync(path, 'utf8')) as MigrationState;
  } catch {
    throw new OperatorError('invalid_argument', `The progress file ${path} cannot be read: pass --restart to start again.`);
  }
  const differs = (['inputSha256', 'projectId', 'env', 'batchSize'] as const).filter((field) => state[field] !== expected[field]);
  if (state.version !== 1 || differs.length > 0) {
    throw new OperatorError('invalid_argument', `The progress file ${path} belongs to another run (${differs.join(', ') || 'version'} differ): pass --restart to start again, or --state for a new file.`);
  }
  return state;
}

/** Written whole to a temporary file, then renamed over the old one: never half a file. */
export function saveState(path: string, state: MigrationState): void {
  const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(temporary, path);
}
