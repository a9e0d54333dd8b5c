/**
 * Guarantees of `tessera webhooks …` as a user runs it (the compiled bin, one process per
 * command, against the test emulator): right after the 11th endpoint of an environment is
 * refused, creating one in the other environment works (issue 19 §5: it waited 26 s for a lock
 * the refused process left behind, then printed the store's raw `10 ABORTED` error); an endpoint
 * is deleted with its secret.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describeFailure } from '../../functions/src/cli/failure';
import { OperatorError } from '../../functions/src/cli/operatorError';
import { LOCAL_SECRETS_FILE } from '../../functions/src/secrets/store';
import { LocalSecretWriter } from '../../functions/src/secrets/writer';
import { EnvScope } from '../../functions/src/store/scope';
import { createEndpoint, deleteEndpoint } from '../../functions/src/webhooks/endpoints';
import { createTestService } from '../support/harness';

const run = promisify(execFile);
const BIN = join(__dirname, '..', '..', 'functions', 'bin', 'tessera.js');
const PUBLIC_URL = 'https://93.184.215.14/tessera/hooks';

async function tessera(...args: string[]): Promise<any> {
  const { stdout } = await run(process.execPath, [BIN, ...args], { env: process.env, timeout: 20_000 });
  return JSON.parse(stdout);
}

async function tesseraFails(...args: string[]): Promise<{ code: number; error: { code: string; message: string } }> {
  try {
    await run(process.execPath, [BIN, ...args], { env: process.env, timeout: 20_000 });
  } catch (err) {
    const e = err as { code: number; stderr: string };
    return { code: e.code, error: JSON.parse(e.stderr).error };
  }
  throw new Error('expected the command to fail');
}

const storedRefs = (): string[] => {
  try {
    return Object.keys(JSON.parse(readFileSync(LOCAL_SECRETS_FILE, 'utf8')));
  } catch {
    return [];
  }
};

it('creates in the other environment right after the 11th is refused, then deletes with its secret', async () => {
  const service = createTestService();
  const { projectId } = await tessera('projects', 'create', '--name', 'webhook limit');
  // The first 10 in this process (the same store and secrets file as the CLI's), to keep the test short.
  const scope = new EnvScope(service.deps.db, projectId, 'test');
  const deps = { secrets: new LocalSecretWriter(), now: Date.now(), surface: 'test' };
  const created: string[] = [];
  for (let i = 0; i < 10; i += 1) created.push((await createEndpoint(scope, { url: PUBLIC_URL, eventTypes: [], allowLoopbackHttp: false }, deps)).endpoint.endpointId);
  try {
    const refused = await tesseraFails('webhooks', 'create', '--project', projectId, '--env', 'test', '--url', PUBLIC_URL);
    expect(refused).toMatchObject({ code: 1, error: { code: 'conflict' } });
    const live = await tessera('webhooks', 'create', '--project', projectId, '--env', 'live', '--url', PUBLIC_URL);
    expect(live).toMatchObject({ env: 'live', enabled: true });
    const deleted = await tessera('webhooks', 'delete', '--endpoint', live.endpointId, '--yes');
    expect(deleted).toMatchObject({ endpointId: live.endpointId, deleted: true, secretsRemoved: 1, secretsNotRemoved: [] });
    expect(storedRefs().filter((ref) => ref.includes(live.endpointId))).toEqual([]);
  } finally {
    for (const endpointId of created) await deleteEndpoint(scope, endpointId, deps);
  }
  expect(storedRefs().filter((ref) => created.some((id) => ref.includes(id)))).toEqual([]);
}, 60_000);

it('puts a store refusal in words, never the store’s raw message', () => {
  const lockTimeout = Object.assign(new Error('10 ABORTED: Transaction lock timeout.'), { code: 10, details: 'Transaction lock timeout.' });
  const unavailable = Object.assign(new Error('14 UNAVAILABLE: No connection established'), { code: 14, details: 'No connection established' });
  expect(describeFailure(lockTimeout)).toEqual({ code: 'store_busy', message: expect.stringMatching(/try again/) });
  expect(describeFailure(unavailable)).toEqual({ code: 'store_unavailable', message: expect.stringMatching(/reachable/) });
  for (const err of [lockTimeout, unavailable]) expect(describeFailure(err).message).not.toMatch(/ABORTED|UNAVAILABLE|lock timeout|No connection/);
  expect(describeFailure(new OperatorError('conflict', 'At most 10.'))).toEqual({ code: 'conflict', message: 'At most 10.' });
});
