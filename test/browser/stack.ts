import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/**
 * The browser suite's stack: `npm start`'s own entry point (functions/lib/local/start.js, the
 * page built into hosting-public/dashboard by `npm run build:dashboard`) on a free port against
 * the run's emulator, and Debian's Chromium driven by playwright-core (no browser download).
 */
const REPO = join(__dirname, '..', '..');
export const CHROMIUM = '/usr/bin/chromium';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface LocalStack {
  baseUrl: string;
  loginLink: string;
  output: () => string;
  /** Sends the signal (SIGTERM unless given; Ctrl-C is SIGINT) and resolves when the process has exited. */
  stop: (signal?: NodeJS.Signals) => Promise<void>;
}

export async function startLocalStack(): Promise<LocalStack> {
  if (!existsSync(join(REPO, 'hosting-public', 'dashboard', 'app.js'))) throw new Error('The dashboard is not built: run `npm run build:dashboard` (npm test does).');
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [join(REPO, 'functions', 'lib', 'local', 'start.js')], {
    cwd: REPO,
    // Its own running.json: a developer's `npm start` (and the CLI that finds it) is left alone.
    env: { ...process.env, PORT: String(port), FORCE_COLOR: '0', TESSERA_RUNNING_FILE: join(mkdtempSync(join(tmpdir(), 'tessera-stack-')), 'running.json') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const loginLink = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the local stack did not start:\n${output}`)), 60_000);
    const check = () => {
      const match = /Dashboard \(one-time sign-in link\): (\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', (code) => reject(new Error(`the local stack exited (${code}):\n${output}`)));
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    loginLink,
    output: () => output,
    stop: (signal: NodeJS.Signals = 'SIGTERM') =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}

/** A fresh profile every run (`--user-data-dir` is what launchPersistentContext passes). */
export async function launchChromium(): Promise<BrowserContext> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run installs it).`);
  return chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'tessera-chromium-')), {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
