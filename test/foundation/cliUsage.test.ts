/**
 * Guarantees of the CLI's contract with its user (issue 22 §3), through the compiled bin:
 * every option of every command described in its help; exit 2 for every usage error (a bad
 * `--env`, a missing option, no store, an unconfirmed irreversible command) with nothing on
 * stdout; nothing on stderr on success; production only with an explicit --firebase-project;
 * the target named on a terminal; irreversible commands confirmed on a terminal or with --yes.
 */
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { commandHelp } from '../../functions/src/cli/help';
import { optionsOf } from '../../functions/src/cli/globalOptions';
import { IRREVERSIBLE_COMMANDS } from '../../functions/src/cli/confirm';
import { COMMANDS } from '../../functions/src/cli/registry';

const run = promisify(execFile);
const BIN = join(__dirname, '..', '..', 'functions', 'bin', 'tessera.js');

async function tessera(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Runs the bin on a pseudo-terminal (util-linux `script`), typing `input`. */
function onTerminal(args: string[], input: string): { status: number | null; output: string } {
  const command = [process.execPath, BIN, ...args].map((part) => `'${part.replace(/'/g, `'\\''`)}'`).join(' ');
  const result = spawnSync('script', ['-qec', command, '/dev/null'], { input, env: process.env, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, output: result.stdout };
}

it('describes every option of every command in its help', () => {
  for (const command of COMMANDS) {
    const help = commandHelp(command, optionsOf(command));
    for (const name of Object.keys(optionsOf(command))) {
      const line = help.split('\n').find((l) => l.startsWith(`  --${name} `) || l === `  --${name}`);
      expect({ command: command.name, option: name, line }).toEqual({ command: command.name, option: name, line: expect.stringMatching(/\S\s{2,}\S.{9,}/) });
    }
    for (const positional of command.positionals ?? []) expect(help).toContain(`  ${positional.name}`);
  }
  expect(commandHelp(COMMANDS.find((c) => c.name === 'keys revoke')!, optionsOf(COMMANDS.find((c) => c.name === 'keys revoke')!))).toMatch(/--yes +Confirm an irreversible command/);
});

it('exits 2 with a JSON usage error and an empty stdout for every usage error', async () => {
  const cases: string[][] = [
    ['conflicts', 'list', '--project', 'proj_x', '--env', 'prod'], // a bad --env
    ['reports', 'subscribers', '--project', 'proj_x', '--env', 'staging'],
    ['keys', 'list'], // a missing option
    ['projects', 'create', '--nom', 'x'], // an unknown option
    ['reports', 'events', '--project', 'p', '--env', 'test', '--format', 'yaml'],
    ['reports', 'events', '--project', 'p', '--env', 'test', '--from', '2026-02-30'],
    ['sourcemaps', 'upload', '--project', 'p', '--env', 'test', '--release', 'r', '--url-prefix', 'https://x/'], // DIR missing
  ];
  for (const args of cases) {
    const result = await tessera(args);
    expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 2, stdout: '' });
    const { error } = JSON.parse(result.stderr);
    expect(['usage', 'invalid_argument']).toContain(error.code);
    expect(error.help).toBe(`tessera ${args.slice(0, 2).filter((w) => !w.startsWith('-')).join(' ')} --help`.replace(/ (proj_x|p)$/, ''));
  }
}, 120_000);

it('writes nothing to stderr on success', async () => {
  const created = await tessera(['projects', 'create', '--name', 'Quiet']);
  expect(created).toMatchObject({ code: 0, stderr: '' });
  const { projectId } = JSON.parse(created.stdout);
  const report = await tessera(['reports', 'subscribers', '--project', projectId, '--env', 'test']);
  expect(report).toMatchObject({ code: 0, stderr: '' });
  expect(report.stdout).toContain('Active subscribers now (sandbox)');
  const json = await tessera(['reports', 'events', '--project', projectId, '--env', 'live', '--format', 'json']);
  expect(json).toMatchObject({ code: 0, stderr: '' });
  expect(JSON.parse(json.stdout)).toMatchObject({ object: 'list', env: 'production', granularity: 'day' });
}, 60_000);

it('never targets production from an ambient GOOGLE_CLOUD_PROJECT; --firebase-project must be explicit and unambiguous', async () => {
  const { FIRESTORE_EMULATOR_HOST, GCLOUD_PROJECT, ...withoutStore } = process.env;
  void FIRESTORE_EMULATOR_HOST;
  void GCLOUD_PROJECT;
  const ambient = await tessera(['projects', 'create', '--name', 'Nope'], { ...withoutStore, GOOGLE_CLOUD_PROJECT: 'acme-prod-1234' });
  expect(ambient.code).toBe(2);
  expect(ambient.stdout).toBe('');
  expect(JSON.parse(ambient.stderr).error.message).toContain('pass --firebase-project acme-prod-1234');
  // Both an emulator and a production project named: refused, not guessed.
  const both = await tessera(['projects', 'create', '--name', 'Nope', '--firebase-project', 'acme-prod-1234']);
  expect(both.code).toBe(2);
  expect(JSON.parse(both.stderr).error.message).toContain('FIRESTORE_EMULATOR_HOST is set');
  const malformed = await tessera(['projects', 'create', '--name', 'Nope', '--firebase-project', 'Not A Project']);
  expect(malformed.code).toBe(2);
}, 60_000);

it('refuses an irreversible command without --yes when there is no terminal, and changes nothing', async () => {
  expect([...IRREVERSIBLE_COMMANDS].sort()).toEqual(['apps archive', 'keys revoke', 'projects archive', 'webhooks delete']);
  const { projectId } = JSON.parse((await tessera(['projects', 'create', '--name', 'Careful'])).stdout);
  const refused = await tessera(['projects', 'archive', '--project', projectId]);
  expect(refused.code).toBe(2);
  expect(JSON.parse(refused.stderr).error.message).toContain('pass --yes');
  const { appId } = JSON.parse((await tessera(['apps', 'create', '--project', projectId, '--platform', 'web', '--allowed-origin', 'https://a.example'])).stdout);
  expect(appId).toMatch(/^app_/); // the project was not archived
  expect(JSON.parse((await tessera(['apps', 'archive', '--app', appId, '--yes'])).stdout)).toEqual({ appId, archived: true });
}, 60_000);

it('on a terminal: names the store first, and asks before an irreversible command (anything but yes changes nothing)', async () => {
  const { projectId } = JSON.parse((await tessera(['projects', 'create', '--name', 'Asked'])).stdout);
  const declined = onTerminal(['projects', 'archive', '--project', projectId], 'no\n');
  // The terminal echoes the typed answer; the target comes before the question.
  const target = declined.output.indexOf('Target: emulator ');
  expect(target).toBeGreaterThanOrEqual(0);
  expect(declined.output.indexOf('tessera projects archive cannot be undone. Change emulator')).toBeGreaterThan(target);
  expect(declined.status).toBe(1);
  expect(declined.output).toContain('"code":"aborted"');
  const { appId } = JSON.parse((await tessera(['apps', 'create', '--project', projectId, '--platform', 'web', '--allowed-origin', 'https://a.example'])).stdout);
  expect(appId).toMatch(/^app_/);
  const confirmed = onTerminal(['projects', 'archive', '--project', projectId], 'yes\n');
  expect(confirmed.status).toBe(0);
  expect(confirmed.output).toContain('"archived": true');
}, 90_000);

it('the README’s help command works through npx and prints tessera’s help, not npm’s', async () => {
  const repo = join(__dirname, '..', '..');
  const readme = readFileSync(join(repo, 'README.md'), 'utf8');
  expect(readme).toContain('npx --no -- tessera --help');
  const { stdout, stderr } = await run('npx', ['--no', '--', 'tessera', '--help'], { cwd: repo, env: process.env });
  expect(stdout).toMatch(/^Usage: tessera <command> \[options\]/);
  expect(stdout).toContain('migrate');
  expect(stderr).toBe('');
}, 60_000);
