import { rmSync } from 'node:fs';
import type { RunningEmulator } from '../../functions/src/local/emulator';
import { readIndexConfig } from './indexEntries';
import { QUERY_LOG_DIR_VARIABLE, readRecordedQueries, refusedQueries } from './queryLog';

/**
 * Stops the run's emulator, then fails the run if the service issued any query production
 * Firestore could not serve with firestore.indexes.json (the emulator needs no index, so no
 * single test can see it; indexPlanner.ts models the rules).
 */
export default async function globalTeardown(): Promise<void> {
  const emulator = (globalThis as { __TESSERA_EMULATOR__?: RunningEmulator }).__TESSERA_EMULATOR__;
  const directory = process.env[QUERY_LOG_DIR_VARIABLE];
  let refusals: string[] = [];
  try {
    if (directory) {
      const queries = readRecordedQueries(directory);
      refusals = refusedQueries(queries, readIndexConfig());
      console.log(`Index check: ${new Set(queries.map((q) => JSON.stringify(q.shapes))).size} query shapes from ${new Set(queries.map((q) => q.caller)).size} service call sites checked against firestore.indexes.json, ${refusals.length} refused.`);
    }
  } finally {
    if (directory) rmSync(directory, { recursive: true, force: true });
    if (emulator) await emulator.stop();
  }
  if (refusals.length > 0) {
    throw new Error(`${refusals.length} quer${refusals.length === 1 ? 'y' : 'ies'} the service ran would fail in production with FAILED_PRECONDITION (no index in firestore.indexes.json):\n  ${refusals.join('\n  ')}`);
  }
}
