/**
 * Guarantees of the secret store: references resolve to Secret Manager names (short ids in the
 * current Google Cloud project at `latest`), values are cached briefly and re-read after the
 * cache window; the local adapter reads an environment variable named after the reference,
 * then the git-ignored `.secrets.local.json`; failures name the reference, never a value; the
 * deployed runtime picks Secret Manager, everything else the local adapter.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../functions/src/clock';
import {
  createSecretStore,
  isSecretRef,
  LocalSecretStore,
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

describe('references', () => {
  it('accepts short ids and full Secret Manager names only', () => {
    for (const ref of ['stripe-key', 'STRIPE_KEY_1', 'projects/p-1/secrets/s', 'projects/p/secrets/s/versions/3', 'projects/p/secrets/s/versions/latest']) expect(isSecretRef(ref)).toBe(true);
    for (const ref of ['', 'has space', 'a/b', 'projects/p/secrets', 'sk_live/xyz']) expect(isSecretRef(ref)).toBe(false);
    expect(secretEnvVarName('stripe-test-key')).toBe('TESSERA_SECRET_STRIPE_TEST_KEY');
    expect(secretEnvVarName('projects/p/secrets/web-hook/versions/2')).toBe('TESSERA_SECRET_WEB_HOOK');
  });
});

describe('SecretManagerStore', () => {
  it('resolves names, caches each value for the cache window, then reads again', async () => {
    const clock = new ManualClock();
    const client = new FakeAccessClient();
    const store = new SecretManagerStore(clock, () => 'gcp-project', client);
    expect(await store.read('stripe-key')).toBe('first-value');
    expect(await store.read('projects/other/secrets/hook/versions/4')).toBe('first-value');
    expect(client.requested).toEqual(['projects/gcp-project/secrets/stripe-key/versions/latest', 'projects/other/secrets/hook/versions/4']);
    client.value = 'rotated-value';
    clock.advance(SECRET_CACHE_MS - 1);
    expect(await store.read('stripe-key')).toBe('first-value');
    clock.advance(1);
    expect(await store.read('stripe-key')).toBe('rotated-value');
    expect(client.requested).toHaveLength(3);
  });

  it('fails with SecretUnavailableError naming the reference: API error, empty version, no project, bad reference', async () => {
    const clock = new ManualClock();
    const client = new FakeAccessClient();
    client.fail = true;
    await expect(new SecretManagerStore(clock, () => 'p', client).read('k')).rejects.toThrow(SecretUnavailableError);
    client.fail = false;
    client.value = '';
    await expect(new SecretManagerStore(clock, () => 'p', client).read('k')).rejects.toThrow(/secret k is unavailable/);
    await expect(new SecretManagerStore(clock, () => undefined, client).read('k')).rejects.toThrow(/no Google Cloud project/);
    await expect(new SecretManagerStore(clock, () => 'p', client).read('not a ref')).rejects.toThrow(SecretUnavailableError);
  });
});

describe('LocalSecretStore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-secrets-'));
  const file = join(dir, '.secrets.local.json');
  writeFileSync(file, JSON.stringify({ 'stripe-key': 'from-file', both: 'file-loses' }));

  it('reads the environment variable first, then the local file', async () => {
    const store = new LocalSecretStore({ environment: { TESSERA_SECRET_BOTH: 'env-wins' }, file });
    expect(await store.read('both')).toBe('env-wins');
    expect(await store.read('stripe-key')).toBe('from-file');
  });

  it('a missing secret names the reference and how to provide it, and never a value', async () => {
    const store = new LocalSecretStore({ environment: { TESSERA_SECRET_OTHER: 'super-secret-value' }, file });
    const error = (await store.read('missing-one').then(() => null, (e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(SecretUnavailableError);
    expect(error.message).toContain('missing-one');
    expect(error.message).toContain('TESSERA_SECRET_MISSING_ONE');
    expect(error.message).not.toContain('super-secret-value');
    expect(error.message).not.toContain('from-file');
  });

  it('an unreadable file is an error, not an empty secret', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{not json');
    await expect(new LocalSecretStore({ environment: {}, file: bad }).read('stripe-key')).rejects.toThrow(/not valid JSON/);
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
