import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SuiteState } from './suite';

/**
 * Starts `npm run emulators`' own entry point (the build and the dashboard bundle come first:
 * `npm run test:e2e` does both) on free ports, fresh, with its own running.json and export
 * folder, and without its scheduler timer (the tests fire the workers themselves). Test
 * workers find it through TESSERA_E2E_STATE.
 */
const REPO = join(__dirname, '..', '..');
const START_TIMEOUT_MS = 360_000;

export default async function globalSetup(): Promise<void> {
  for (const built of ['functions/lib/local/suite/start.js', 'hosting-public/dashboard/app.js']) {
    if (!existsSync(join(REPO, built))) throw new Error(`${built} is missing: run the end-to-end tests with npm run test:e2e (it builds first).`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'tessera-e2e-'));
  const logFile = join(dir, 'suite.log');
  const runningFile = join(dir, 'running.json');
  const out = openSync(logFile, 'a');
  const child = spawn(process.execPath, [join(REPO, 'functions', 'lib', 'local', 'suite', 'start.js')], {
    cwd: REPO,
    detached: true,
    stdio: ['ignore', out, out],
    env: { ...process.env, TESSERA_SUITE_PORTS: 'free', TESSERA_SUITE_DATA: join(dir, 'export'), TESSERA_RUNNING_FILE: runningFile, TESSERA_SUITE_SCHEDULES: 'off', TESSERA_FRESH: '1', FORCE_COLOR: '0' },
  });
  closeSync(out);
  child.unref();
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!readFileSync(logFile, 'utf8').includes('Tessera suite ready.')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
      throw new Error(`the emulator suite did not start:\n${readFileSync(logFile, 'utf8').slice(-5000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const running = JSON.parse(readFileSync(runningFile, 'utf8'));
  const state: SuiteState = { pid: child.pid!, dir, logFile, runningFile, running };
  const stateFile = join(dir, 'state.json');
  writeFileSync(stateFile, JSON.stringify(state, null, 2));
  process.env.TESSERA_E2E_STATE = stateFile;
}
