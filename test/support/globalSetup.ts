import { startEmulator } from '../../functions/src/local/emulator';

/**
 * Starts a private Firestore emulator for the run (unless FIRESTORE_EMULATOR_HOST points at
 * one already). Workers are forked after this and inherit the variable.
 */
export default async function globalSetup(): Promise<void> {
  const emulator = await startEmulator();
  (globalThis as { __TESSERA_EMULATOR__?: unknown }).__TESSERA_EMULATOR__ = emulator;
  process.env.FIRESTORE_EMULATOR_HOST = emulator.host;
}
