import type { RunningEmulator } from '../../functions/src/local/emulator';

export default async function globalTeardown(): Promise<void> {
  const emulator = (globalThis as { __TESSERA_EMULATOR__?: RunningEmulator }).__TESSERA_EMULATOR__;
  if (emulator) await emulator.stop();
}
