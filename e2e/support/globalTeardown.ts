import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { SuiteState } from './suite';

/**
 * Stops the suite as a developer does (SIGINT, i.e. Ctrl-C) and checks that it stopped and
 * exported its data; anything left running is killed with its process group. The run's folder
 * (log, export) is kept only when something failed here.
 */
export default async function globalTeardown(): Promise<void> {
  const stateFile = process.env.TESSERA_E2E_STATE;
  if (!stateFile || !existsSync(stateFile)) return;
  const state = JSON.parse(readFileSync(stateFile, 'utf8')) as SuiteState;
  const alive = () => {
    try {
      process.kill(state.pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  process.kill(state.pid, 'SIGINT');
  const deadline = Date.now() + 120_000;
  while (alive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 500));
  if (alive()) {
    process.kill(-state.pid, 'SIGKILL');
    throw new Error(`the emulator suite did not stop on SIGINT within 120 s; killed. Log: ${state.logFile}`);
  }
  // Ctrl-C exports the data for the next start (--export-on-exit).
  if (!existsSync(join(state.dir, 'export', 'firebase-export-metadata.json'))) throw new Error(`the emulator suite stopped without exporting its data. Log: ${state.logFile}`);
  rmSync(state.dir, { recursive: true, force: true });
}
