/**
 * Guarantees of the secret store: a secret is named inside its project's namespace (the secret
 * id `tessera-{projectId}-{name}`, in the current Google Cloud project at `latest`), so a name
 * never resolves to another project's secret and no reference can name a secret outside the
 * namespace; values are cached briefly and re-read after the cache window; the local adapter
 * reads an environment variable named after the secret id, then the git-ignored
 * `.secrets.local.json`; failures name the secret, never a value; the deployed runtime picks
 * Secret Manager, everything else the local adapter.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../support/manualClock';
import {
  createSecretStore,
  isSecretName,
  LocalSecretStore,
  projectSecretId,
  SECRET_CACHE_MS,
  SecretManagerStore,
  secretEnvVarName,
  SecretUnavailableError,
} from '../../functions/src/secrets/store';

class FakeAccessClient {
  readonly requested: string[] = [];
  value: string | null = 'first-value';
  fail = false;
  async accessSecretVersion(request: { name: string }) {
    this.requested.push(request.name);
    if (this.fail) throw new Error('PERMISSION_DENIED');
    return [{ payload: { data: this.value === null ? null : Buffer.from(this.value, 'utf8') } }] as [{ payload: { data: Uint8Array | null } }];
  }
}

describe('names and namespaces', () => {
  it('accepts plain names only: no Secret Manager path can leave the project’s namespace', () => {
    for (const name of ['stripe-key', 'STRIPE_KEY_1', 'webhook-whep_x-2']) expect(isSecretName(name)).toBe(true);
    for (const name of ['', 'has space', 'a/b', 'projects/p/secrets/s', 'projects/p/secrets/s/versions/3', 'sk_live/xyz', 'x'.repeat(129)]) expect(isSecretName(name)).toBe(false);
  });

  it('prefixes the project, unambiguously: two (project, name) pairs never share a secret id', () => {
    expect(projectSecretId('proj_demo', 'stripe-test-key')).toBe('tessera-proj_demo-stripe-test-key');
    // A project id with `-` could make `tessera-a-b-x` ambiguous: it cannot name secrets at all.
    expect(() => projectSecretId('proj_A-b', 'x')).toThrow(SecretUnavailableError);
    expect(() => projectSecretId('proj_demo', 'projects/other/secrets/their-key')).toThrow(SecretUnavailableError);
    expect(secretEnvVarName('proj_demo', 'stripe-test-key')).toBe('TESSERA_SECRET_TESSERA_PROJ_DEMO_STRIPE_TEST_KEY');
  });
});

describe('SecretManagerStore', () => {
  it('reads the project’s secret id in the functions’ Google Cloud project, caches it for the cache window, then reads again', async () => {
    const clock = new ManualClock();
    const client = new FakeAccessClient();
    const store = new SecretManagerStore(clock, () => 'gcp-project', client);
    expect(await store.read('proj_a', 'stripe-key')).toBe('first-value');
    expect(await store.read('proj_b', 'stripe-key')).toBe('first-value');
    expect(client.requested).toEqual(['projects/gcp-project/secrets/tessera-proj_a-stripe-key/versions/latest', 'projects/gcp-project/secrets/tessera-proj_b-stripe-key/versions/latest']);
    client.value = 'rotated-value';
    clock.advance(SECRET_CACHE_MS - 1);
    expect(await store.read('proj_a', 'stripe-key')).toBe('first-value');
    clock.advance(1);
    expect(await store.read('proj_a', 'stripe-key')).toBe('rotated-value');
    expect(client.requested).toHaveLength(3);
  });

  it('never asks Secret Manager for a path a reference spells out (another project, another Google Cloud project)', async () => {
    const client = new FakeAccessClient();
    const store = new SecretManagerStore(new ManualClock(), () => 'gcp-project', client);
    await expect(store.read('proj_a', 'projects/gcp-project/secrets/tessera-proj_b-stripe-key')).rejects.toThrow(SecretUnavailableError);
    await expect(store.read('proj_a', 'projects/elsewhere/secrets/key/versions/1')).rejects.toThrow(SecretUnavailableError);
    expect(client.requested).toEqual([]);
  });

  it('fails with SecretUnavailableError naming the secret: API error, empty version, no project, bad name', async () => {
    const clock = new ManualClock();
    const client = new FakeAccessClient();
    client.fail = true;
    await expect(new SecretManagerStore(clock, () => 'p', client).read('proj_a', 'k')).rejects.toThrow(SecretUnavailableError);
    client.fail = false;
    client.value = '';
    await expect(new SecretManagerStore(clock, () => 'p', client).read('proj_a', 'k')).rejects.toThrow(/secret tessera-proj_a-k is unavailable/);
    await expect(new SecretManagerStore(clock, () => undefined, client).read('proj_a', 'k')).rejects.toThrow(/no Google Cloud project/);
    await expect(new SecretManagerStore(clock, () => 'p', client).read('proj_a', 'not a ref')).rejects.toThrow(SecretUnavailableError);
  });
});

describe('LocalSecretStore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-secrets-'));
  const file = join(dir, '.secrets.local.json');
  writeFileSync(file, JSON.stringify({ 'tessera-proj_a-stripe-key': 'from-file', 'tessera-proj_a-both': 'file-loses', 'tessera-proj_b-hook': 'b-only' }));

  it('reads the environment variable first, then the local file, by secret id', async () => {
    const store = new LocalSecretStore({ environment: { TESSERA_SECRET_TESSERA_PROJ_A_BOTH: 'env-wins' }, file });
    expect(await store.read('proj_a', 'both')).toBe('env-wins');
    expect(await store.read('proj_a', 'stripe-key')).toBe('from-file');
  });

  it('another project’s secret is not found under this project’s name for it', async () => {
    const store = new LocalSecretStore({ environment: { TESSERA_SECRET_TESSERA_PROJ_B_HOOK: 'b-env' }, file });
    expect(await store.read('proj_b', 'hook')).toBe('b-env');
    const error = (await store.read('proj_a', 'hook').then(() => null, (e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(SecretUnavailableError);
    expect(error.message).toContain('tessera-proj_a-hook');
    expect(error.message).not.toContain('b-only');
  });

  it('a missing secret names the secret id and how to provide it, and never a value', async () => {
    const store = new LocalSecretStore({ environment: { TESSERA_SECRET_OTHER: 'super-secret-value' }, file });
    const error = (await store.read('proj_a', 'missing-one').then(() => null, (e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(SecretUnavailableError);
    expect(error.message).toContain('tessera-proj_a-missing-one');
    expect(error.message).toContain('TESSERA_SECRET_TESSERA_PROJ_A_MISSING_ONE');
    expect(error.message).not.toContain('super-secret-value');
    expect(error.message).not.toContain('from-file');
  });

  it('an unreadable file is an error, not an empty secret', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{not json');
    await expect(new LocalSecretStore({ environment: {}, file: bad }).read('proj_a', 'stripe-key')).rejects.toThrow(/not valid JSON/);
  });
});

describe('createSecretStore', () => {
  const clock = new ManualClock();
  it('uses Secret Manager on deployed Cloud Functions and the local adapter elsewhere, unless told otherwise', () => {
    expect(createSecretStore(clock, { K_SERVICE: 'serverapi' })).toBeInstanceOf(SecretManagerStore);
    expect(createSecretStore(clock, { K_SERVICE: 'serverapi', FUNCTIONS_EMULATOR: 'true' })).toBeInstanceOf(LocalSecretStore);
    expect(createSecretStore(clock, {})).toBeInstanceOf(LocalSecretStore);
    expect(createSecretStore(clock, { TESSERA_SECRET_STORE: 'secret-manager' })).toBeInstanceOf(SecretManagerStore);
    expect(createSecretStore(clock, { K_SERVICE: 'x', TESSERA_SECRET_STORE: 'local' })).toBeInstanceOf(LocalSecretStore);
    expect(() => createSecretStore(clock, { TESSERA_SECRET_STORE: 'vault' })).toThrow(/TESSERA_SECRET_STORE/);
  });
});
