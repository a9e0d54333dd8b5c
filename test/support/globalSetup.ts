import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../../functions/src/local/emulator';
import { QUERY_LOG_DIR_VARIABLE } from './queryLog';

/**
 * Starts a private Firestore emulator for the run (unless FIRESTORE_EMULATOR_HOST points at
 * one already), and the run's directory for the service's query shapes (queryRecorder.ts,
 * checked against the indexes by globalTeardown.ts). Workers are forked after this and
 * inherit both variables.
 */
export default async function globalSetup(): Promise<void> {
  const emulator = await startEmulator();
  (globalThis as { __TESSERA_EMULATOR__?: unknown }).__TESSERA_EMULATOR__ = emulator;
  process.env.FIRESTORE_EMULATOR_HOST = emulator.host;
  process.env[QUERY_LOG_DIR_VARIABLE] = mkdtempSync(join(tmpdir(), 'tessera-queries-'));
}
