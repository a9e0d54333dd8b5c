/**
 * Guarantees of the operator CLI as a user runs it (the compiled bin, `npm test` builds it):
 * JSON on stdout, JSON errors on stderr with a non-zero exit, and the whole key lifecycle.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const BIN = join(__dirname, '..', '..', 'functions', 'bin', 'tessera.js');

async function tessera(...args: string[]): Promise<any> {
  const { stdout } = await run(process.execPath, [BIN, ...args], { env: process.env });
  return JSON.parse(stdout);
}

async function tesseraFails(...args: string[]): Promise<{ code: number; error: any }> {
  try {
    await run(process.execPath, [BIN, ...args], { env: process.env });
  } catch (err) {
    const e = err as { code: number; stderr: string };
    return { code: e.code, error: JSON.parse(e.stderr).error };
  }
  throw new Error('expected the command to fail');
}

it('creates a project, an app and keys; rotates, lists, revokes and archives', async () => {
  const { projectId } = await tessera('projects', 'create', '--name', 'CLI test');
  expect(projectId).toMatch(/^proj_/);
  const { appId } = await tessera('apps', 'create', '--project', projectId, '--platform', 'web', '--allowed-origin', 'https://a.example', '--allowed-origin', 'https://*.b.example');
  const keys = await tessera('keys', 'create', '--app', appId, '--env', 'test');
  expect(keys.publishable.key).toMatch(/^cd_pub_test_/);
  expect(keys.secret.key).toMatch(/^cd_sk_test_/);
  const rotated = await tessera('keys', 'rotate', '--key', keys.secret.key, '--grace', '24h');
  expect(rotated.newKey.key).toMatch(/^cd_sk_test_/);
  expect(rotated.oldKey.id).toBe(keys.secret.id);
  await tessera('keys', 'revoke', '--key', keys.publishable.id, '--yes');
  const listing = await tessera('keys', 'list', '--app', appId);
  expect(listing.keys.map((k: { state: string }) => k.state).sort()).toEqual(['active', 'grace', 'revoked']);
  expect(JSON.stringify(listing)).not.toContain(rotated.newKey.key);
  expect(listing.activity).toHaveLength(4);
  expect(await tessera('apps', 'archive', '--app', appId, '--yes')).toEqual({ appId, archived: true });
  expect(await tessera('projects', 'archive', '--project', projectId, '--yes')).toEqual({ projectId, archived: true });
}, 60_000);

it('prints a demo project with web, iOS and Android apps and test and live keys', async () => {
  const demo = await tessera('demo');
  expect(demo.apps.map((a: { platform: string }) => a.platform)).toEqual(['web', 'ios', 'android']);
  for (const app of demo.apps) {
    expect(app.keys.test.secret).toMatch(/^cd_sk_test_/);
    expect(app.keys.live.publishable).toMatch(/^cd_pub_live_/);
  }
}, 60_000);

async function tesseraText(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env: process.env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

it('prints readable help for a person: the command list, and one command with its options', async () => {
  for (const args of [[], ['help'], ['--help'], ['-h']]) {
    const help = await tesseraText(...args);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: tessera <command> \[options\]/);
    expect(help.stdout).toContain('keys rotate');
    expect(help.stdout).toContain('conflicts resolve');
  }
  for (const args of [['keys', 'rotate', '--help'], ['help', 'keys', 'rotate'], ['keys', 'rotate', '--key', 'k', '-h']]) {
    const help = await tesseraText(...args);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: tessera keys rotate --key KEY_OR_ID');
    expect(help.stdout).toMatch(/--grace <value>/);
  }
  expect((await tesseraText('apps', 'create', '--help')).stdout).toMatch(/--allowed-origin <value> +\(repeatable\)/);
}, 60_000);

it('answers an unknown command with the command list on stderr and exit 2', async () => {
  const unknown = await tesseraText('keys', 'explode');
  expect(unknown.code).toBe(2);
  expect(unknown.stdout).toBe('');
  expect(unknown.stderr).toMatch(/^Unknown command: tessera keys explode/);
  expect(unknown.stderr).toContain('keys create');
}, 60_000);

it('reports failures as JSON on stderr with a non-zero exit', async () => {
  const missing = await tesseraFails('keys', 'list', '--app', 'app_nope');
  expect(missing.code).toBe(1);
  expect(missing.error.code).toBe('not_found');
  const badFlag = await tesseraFails('projects', 'create', '--nom', 'x');
  expect(badFlag.code).toBe(2);
}, 60_000);
