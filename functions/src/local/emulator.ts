import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';

/**
 * Finds, starts and stops the Cloud Firestore emulator for the local runner, the tests and
 * the benchmark. `FIRESTORE_EMULATOR_HOST` wins when set (nothing is started or stopped).
 */

const GCLOUD_COMPONENT = 'platform/cloud-firestore-emulator/cloud_firestore_emulator';
const SDK_ROOTS = ['/usr/lib/google-cloud-sdk', '/usr/share/google-cloud-sdk', '/opt/google-cloud-sdk', join(homedir(), 'google-cloud-sdk')];

export const INSTALL_HINT = [
  'No Cloud Firestore emulator found. Install one of:',
  '  - Google Cloud CLI component: gcloud components install cloud-firestore-emulator',
  '    (Debian/Ubuntu packages: google-cloud-cli-firestore-emulator)',
  '  - firebase-tools: npx firebase-tools setup:emulators:firestore (needs Java 11+)',
  'or point FIRESTORE_EMULATOR_BINARY_PATH at a launcher or jar, or FIRESTORE_EMULATOR_HOST at a running emulator.',
].join('\n');

export interface EmulatorCommand {
  command: string;
  args: string[];
}

/** The emulator to run, or null when none is installed. */
export function findEmulator(): EmulatorCommand | null {
  const explicit = process.env.FIRESTORE_EMULATOR_BINARY_PATH;
  const candidates: string[] = [];
  if (explicit) candidates.push(explicit);
  if (process.env.CLOUDSDK_ROOT_DIR) candidates.push(join(process.env.CLOUDSDK_ROOT_DIR, GCLOUD_COMPONENT));
  for (const root of SDK_ROOTS) candidates.push(join(root, GCLOUD_COMPONENT));
  const cache = join(homedir(), '.cache', 'firebase', 'emulators');
  if (existsSync(cache)) {
    const jars = readdirSync(cache).filter((f) => /^cloud-firestore-emulator-v[\d.]+\.jar$/.test(f)).sort().reverse();
    candidates.push(...jars.map((jar) => join(cache, jar)));
  }
  for (const candidate of candidates) {
    if (!existsSync(candidate)) continue;
    if (candidate.endsWith('.jar')) return { command: 'java', args: ['-jar', candidate] };
    return { command: candidate, args: [] };
  }
  return null;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface RunningEmulator {
  host: string;
  /** True when this process started it (and so must stop it). */
  owned: boolean;
  exportTo(directory: string, projectId: string): Promise<void>;
  /** Deletes every document of the project's database (the emulator's reset endpoint). */
  clear(projectId: string): Promise<void>;
  stop(): Promise<void>;
}

export interface StartOptions {
  port?: number;
  /** A previous export folder to start from. */
  importFrom?: string;
  log?: (line: string) => void;
}

export async function startEmulator(options: StartOptions = {}): Promise<RunningEmulator> {
  const existing = process.env.FIRESTORE_EMULATOR_HOST;
  if (existing) return handle(existing, null);
  const found = findEmulator();
  if (!found) throw new EmulatorMissingError();
  const port = options.port ?? (await freePort());
  const host = `127.0.0.1:${port}`;
  const args = [...found.args, 'start', '--host=127.0.0.1', `--port=${port}`];
  const seed = options.importFrom ? latestExportMetadata(options.importFrom) : null;
  if (seed) args.push(`--seed_from_export=${seed}`);
  // Its own process group, so stopping it takes the JVM behind the launcher script too.
  const child = spawn(found.command, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d: Buffer) => options.log?.(d.toString()));
  child.stderr?.on('data', (d: Buffer) => options.log?.(d.toString()));
  await waitUntilUp(host, child);
  return handle(host, child);
}

export class EmulatorMissingError extends Error {
  constructor() {
    super(INSTALL_HINT);
    this.name = 'EmulatorMissingError';
  }
}

/** The emulator refused to clear its data (409 while transactions still hold locks). */
export class EmulatorResetError extends Error {
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(`emulator reset failed: ${status} ${detail}`);
    this.name = 'EmulatorResetError';
  }
}

function handle(host: string, child: ChildProcess | null): RunningEmulator {
  return {
    host,
    owned: child !== null,
    async exportTo(directory, projectId) {
      const staging = `${directory}.staging`;
      rmSync(staging, { recursive: true, force: true });
      mkdirSync(staging, { recursive: true });
      const response = await fetch(`http://${host}/emulator/v1/projects/${projectId}:export`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ database: `projects/${projectId}/databases/(default)`, export_directory: staging }),
      });
      if (!response.ok) throw new Error(`emulator export failed: ${response.status} ${await response.text()}`);
      // Replace the previous state only once the new export is complete.
      rmSync(directory, { recursive: true, force: true });
      renameSync(staging, directory);
    },
    async clear(projectId) {
      const response = await fetch(`http://${host}/emulator/v1/projects/${projectId}/databases/(default)/documents`, { method: 'DELETE' });
      if (!response.ok) throw new EmulatorResetError(response.status, await response.text());
    },
    async stop() {
      if (!child || child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        return;
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }, 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function latestExportMetadata(directory: string): string | null {
  if (!existsSync(directory)) return null;
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (entry.endsWith('.overall_export_metadata')) found.push(path);
    }
  };
  walk(directory);
  return found.sort().pop() ?? null;
}

async function waitUntilUp(host: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the Firestore emulator exited with code ${child.exitCode}`);
    try {
      const response = await fetch(`http://${host}/`);
      if (response.ok) return;
    } catch {
      /* not yet listening */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the Firestore emulator did not start within 60 s');
}
