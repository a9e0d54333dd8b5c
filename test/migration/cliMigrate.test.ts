/**
 * `tessera migrate` through the compiled bin (issue 22 §3): a JSONL or CSV file in batches
 * through the migration service; a plain progress line per batch off a terminal; a summary
 * naming every refused row by its line and reason; resumable from its progress file (a finished
 * batch is never sent again); idempotent when run again; a progress file of another run refused.
 */
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createDeps } from '../../functions/src/app/deps';
import type { GrantRecord } from '../../functions/src/entitlements/model';
import type { CustomerRecord } from '../../functions/src/customers/model';
import { findCustomerIdByIdentity } from '../../functions/src/customers/lookup';
import { createProject } from '../../functions/src/projects/repository';
import { EnvScope } from '../../functions/src/store/scope';

const run = promisify(execFile);
const BIN = join(__dirname, '..', '..', 'functions', 'bin', 'tessera.js');
const dir = mkdtempSync(join(tmpdir(), 'tessera-migrate-'));
const db = createDeps().db;
let projectId: string;
let scope: EnvScope;

async function tessera(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env: process.env, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  ({ projectId } = await createProject(db, 'migrate CLI', Date.now()));
  scope = new EnvScope(db, projectId, 'test');
});

const grantsOf = async (customerId: string) => (await scope.collection('grants').where('customerId', '==', customerId).get()).docs.map((d) => d.data() as GrantRecord);

function jsonlFile(name: string, prefix: string): string {
  const lines = [
    JSON.stringify({ developerUserId: `${prefix}_1`, email: `${prefix}_1@example.com`, entitlements: { pro: true } }),
    JSON.stringify({ developerUserId: `${prefix}_2`, entitlements: { pro: true, sync: false } }),
    '{ not json',
    JSON.stringify({ developerUserId: `${prefix}_3` }),
    '',
    JSON.stringify({ email: 'nobody@example.com' }),
    JSON.stringify({ developerUserId: `${prefix}_4`, traits: { plan: 'team' }, entitlements: { sync: true } }),
    JSON.stringify({ developerUserId: `${prefix}_5`, entitlements: { 'not a key!': true } }),
    JSON.stringify({ developerUserId: `${prefix}_6` }),
  ];
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

it('migrates a JSONL file in batches, a progress line per batch, and names each refused row by its line', async () => {
  const file = jsonlFile('users.jsonl', 'cli_a');
  const result = await tessera('migrate', '--file', file, '--project', projectId, '--env', 'test', '--batch-size', '3');
  expect(result).toMatchObject({ code: 0, stderr: '' });
  // 7 rows reach the service (2 lines are unreadable): 3 batches of at most 3.
  expect(result.stdout).toContain('batch 1/3: 3/7 rows sent');
  expect(result.stdout).toContain('batch 3/3: 7/7 rows sent');
  expect(result.stdout).toMatch(/Refused rows\nline +developerUserId +reason\n-+ +-+ +-+\n +3 +– +line_invalid_json\n +6 +– +developerUserId_required\n +8 +cli_a_5 +entitlementKey_invalid\n/);

  const customer = await findCustomerIdByIdentity(scope, 'developer', 'cli_a_4');
  const record = (await scope.doc('customers', customer!).get()).data() as CustomerRecord;
  expect(record.traits).toMatchObject({ plan: 'team' });
  expect((await grantsOf(customer!)).map((g) => [g.entitlementKey, g.source.rail])).toEqual([['sync', 'manual']]);
}, 120_000);

it('resumes after the last finished batch (never sending it again), and a re-run is idempotent', async () => {
  const file = jsonlFile('resume.jsonl', 'cli_b');
  const bytes = readFileSync(file);
  // An earlier run that stopped after its first batch (rows on lines 1, 2 and 4).
  writeFileSync(`${file}.tessera-state.json`, JSON.stringify({
    version: 1, inputSha256: createHash('sha256').update(bytes).digest('hex'), projectId, env: 'test', batchSize: 3, batchesDone: 1,
    totals: { matched: 0, created: 3, conflicts: 0, errors: 1, entitlementsGranted: 2, entitlementsSkippedRailBacked: 0, entitlementsSkippedLapsed: 0, entitlementsUndetermined: 0, entitlementKeysRegistered: 0 },
    refused: [{ line: 3, developerUserId: null, reason: 'line_invalid_json' }], conflicts: [], finishedAt: null,
  }));
  const resumed = await tessera('migrate', '--file', file, '--project', projectId, '--env', 'test', '--batch-size', '3', '--format', 'json');
  expect(resumed).toMatchObject({ code: 0, stderr: '' });
  const summary = JSON.parse(resumed.stdout);
  // 8 lines hold rows; batches 2 and 3 (lines 6–9) create cli_b_4 and cli_b_6 and refuse two.
  expect(summary).toMatchObject({ object: 'migration_summary', rows: 8, batches: 3, resumedAfterBatches: 1, created: 3 + 2, errors: 1 + 2, entitlementsGranted: 2 + 1 });
  expect(summary.target).toMatch(/^emulator /);
  expect(summary.refusedRows.map((r: { line: number }) => r.line)).toEqual([3, 6, 8]);
  // The first batch was done before: this run did not send it.
  expect(await findCustomerIdByIdentity(scope, 'developer', 'cli_b_1')).toBeNull();
  expect(await findCustomerIdByIdentity(scope, 'developer', 'cli_b_4')).not.toBeNull();

  const again = JSON.parse((await tessera('migrate', '--file', file, '--project', projectId, '--env', 'test', '--batch-size', '3', '--restart', '--format', 'json')).stdout);
  expect(again).toMatchObject({ resumedAfterBatches: 0, created: 3, matched: 2, entitlementsGranted: 2 });
  const once = JSON.parse((await tessera('migrate', '--file', file, '--project', projectId, '--env', 'test', '--batch-size', '3', '--restart', '--format', 'json')).stdout);
  expect(once).toMatchObject({ created: 0, matched: 5, entitlementsGranted: 0, errors: 2 + 1 });
  const customer = await findCustomerIdByIdentity(scope, 'developer', 'cli_b_1');
  expect((await grantsOf(customer!)).map((g) => g.grantId)).toEqual([`mig_${customer}_pro`]);
}, 180_000);

it('refuses a progress file of another run instead of resuming it (exit 2)', async () => {
  const file = jsonlFile('other.jsonl', 'cli_c');
  expect((await tessera('migrate', '--file', file, '--project', projectId, '--env', 'test', '--format', 'json')).code).toBe(0);
  const live = await tessera('migrate', '--file', file, '--project', projectId, '--env', 'live');
  expect(live.code).toBe(2);
  expect(live.stdout).toBe('');
  expect(JSON.parse(live.stderr).error.message).toMatch(/belongs to another run \(env differ\): pass --restart/);
}, 120_000);

it('reads a CSV file: quoted fields, entitlement lists and trait columns', async () => {
  const path = join(dir, 'users.csv');
  writeFileSync(path, ['developerUserId,email,displayName,entitlements,traits.plan', 'cli_d_1,d1@example.com,"Doe, Jane ""JD""",pro;sync,team', 'cli_d_2,,,,', ',x@example.com,,,', '"cli_d_3",d3@example.com,"Multi', 'line",pro,solo'].join('\r\n'));
  const result = await tessera('migrate', '--file', path, '--project', projectId, '--env', 'test', '--format', 'json');
  expect(result).toMatchObject({ code: 0, stderr: '' });
  const summary = JSON.parse(result.stdout);
  expect(summary).toMatchObject({ rows: 4, created: 3, errors: 1, entitlementsGranted: 3 });
  expect(summary.refusedRows).toEqual([{ line: 4, developerUserId: null, reason: 'developerUserId_required' }]);
  const jane = await findCustomerIdByIdentity(scope, 'developer', 'cli_d_1');
  const record = (await scope.doc('customers', jane!).get()).data() as CustomerRecord;
  expect(record).toMatchObject({ email: 'd1@example.com', traits: { plan: 'team', displayName: 'Doe, Jane "JD"' } });
  expect((await grantsOf(jane!)).map((g) => g.entitlementKey).sort()).toEqual(['pro', 'sync']);
  const multi = await findCustomerIdByIdentity(scope, 'developer', 'cli_d_3');
  expect(((await scope.doc('customers', multi!).get()).data() as CustomerRecord).traits.displayName).toBe('Multi\r\nline'); // kept as written (RFC 4180)

  const bad = join(dir, 'users.txt');
  writeFileSync(bad, 'x');
  expect((await tessera('migrate', '--file', bad, '--project', projectId, '--env', 'test')).code).toBe(2);
}, 120_000);

it('on a terminal: names the target, then draws a progress bar redrawn in place, then the summary', () => {
  const file = jsonlFile('terminal.jsonl', 'cli_e');
  const command = [process.execPath, BIN, 'migrate', '--file', file, '--project', projectId, '--env', 'test', '--batch-size', '4'].map((p) => `'${p}'`).join(' ');
  const result = spawnSync('script', ['-qec', command, '/dev/null'], { env: process.env, encoding: 'utf8', timeout: 120_000 });
  expect(result.status).toBe(0);
  const output = result.stdout;
  expect(output).toMatch(/^Target: emulator /);
  expect(output).toContain('\r[#################.............] 4/7 rows, batch 1/2, 2 refused'); // line 3 unreadable, line 6 refused
  expect(output).toContain('\r[##############################] 7/7 rows, batch 2/2, 3 refused\r\n');
  expect(output).toContain('Refused rows');
  expect(output).not.toContain('batch 1/2: '); // no plain progress lines on a terminal
}, 120_000);
