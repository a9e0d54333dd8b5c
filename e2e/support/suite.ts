import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What globalSetup started: the suite's process, its log, and its running.json. */
export interface SuiteState {
  pid: number;
  dir: string;
  logFile: string;
  runningFile: string;
  running: {
    baseUrl: string;
    firestoreEmulatorHost: string;
    gcloudProject: string;
    suite: { authEmulatorHost: string; pubsubEmulatorHost: string; tasksEmulatorHost: string; functionsEmulatorHost: string };
  };
}

export function suite(): SuiteState {
  const file = process.env.TESSERA_E2E_STATE;
  if (!file) throw new Error('TESSERA_E2E_STATE is not set: run with npm run test:e2e');
  return JSON.parse(readFileSync(file, 'utf8')) as SuiteState;
}

/** Everything the suite and its functions printed so far. */
export const suiteOutput = (): string => readFileSync(suite().logFile, 'utf8');

export const PROJECT = 'proj_demo';
export const IOS_TEST_PUBLISHABLE = 'cd_pub_test_demoIosOEG7YlH3lZL2X96H5KHcSo1Y';
export const IOS_BUNDLE = { 'X-Service-Bundle-Id': 'com.example.tessera.demo' };
export const WEB_TEST_SECRET = 'cd_sk_test_demoWeba8YRuitN1UQGa19ODpwiZ5s4';

/** A request through Hosting's port (its rewrites reach the functions), answered as JSON. */
export async function api(method: 'GET' | 'POST', path: string, key: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const response = await fetch(`${suite().running.baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* kept as text */
  }
  return { status: response.status, body: parsed };
}

/** `tessera …` as an operator runs it: it finds the suite through its running.json. */
export function tessera(...args: string[]): any {
  const { FIRESTORE_EMULATOR_HOST: _host, GCLOUD_PROJECT: _project, ...environment } = process.env;
  const result = spawnSync(process.execPath, [join(__dirname, '..', '..', 'functions', 'bin', 'tessera.js'), ...args], {
    encoding: 'utf8',
    env: { ...environment, TESSERA_RUNNING_FILE: suite().runningFile },
    timeout: 120_000,
  });
  if (result.status !== 0) throw new Error(`tessera ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** Polls until `check` returns a value (not undefined/false) or the time is up. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 120_000, everyMs = 1000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}
