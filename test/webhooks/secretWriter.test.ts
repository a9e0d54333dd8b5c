/**
 * Guarantees of where generated secrets go and of the local-only loopback setting: an operator
 * command writes to Secret Manager when it works on production and to the local secrets file
 * against an emulator; the local file is owner-only, never overwrites a secret and is readable
 * by the local secret store; the Secret Manager writer creates one secret whose first version
 * is the value; a deployed function refuses to start with TESSERA_WEBHOOKS_ALLOW_LOOPBACK on.
 */
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings } from '../../functions/src/config/settings';
import { LocalSecretStore, SecretUnavailableError } from '../../functions/src/secrets/store';
import { createOperatorSecretWriter, LocalSecretWriter, SecretManagerWriter } from '../../functions/src/secrets/writer';

describe('LocalSecretWriter', () => {
  it('creates owner-only entries in the project’s namespace that the local store reads, refuses to overwrite, and removes', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tessera-writer-')), 'secrets.json');
    const writer = new LocalSecretWriter(file);
    const reader = new LocalSecretStore({ file, environment: {} });
    await writer.create('proj_a', 'webhook-a-1', 'whsec_one');
    await writer.create('proj_a', 'webhook-a-2', 'whsec_two');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')))).toEqual(['tessera-proj_a-webhook-a-1', 'tessera-proj_a-webhook-a-2']);
    await expect(reader.read('proj_a', 'webhook-a-1')).resolves.toBe('whsec_one');
    // The same name in another project is another secret.
    await expect(reader.read('proj_b', 'webhook-a-1')).rejects.toBeInstanceOf(SecretUnavailableError);
    await expect(writer.create('proj_a', 'webhook-a-1', 'whsec_other')).rejects.toBeInstanceOf(SecretUnavailableError);
    await expect(reader.read('proj_a', 'webhook-a-1')).resolves.toBe('whsec_one');
    await writer.remove('proj_b', 'webhook-a-1');
    await expect(reader.read('proj_a', 'webhook-a-1')).resolves.toBe('whsec_one');
    await writer.remove('proj_a', 'webhook-a-1');
    await writer.remove('proj_a', 'webhook-a-1');
    await expect(reader.read('proj_a', 'webhook-a-1')).rejects.toBeInstanceOf(SecretUnavailableError);
    await expect(reader.read('proj_a', 'webhook-a-2')).resolves.toBe('whsec_two');
    await expect(writer.create('proj_a', 'projects/p/secrets/s', 'x')).rejects.toBeInstanceOf(SecretUnavailableError);
  });
});

describe('SecretManagerWriter', () => {
  it('creates the project’s secret id in the Google Cloud project and adds the value as its first version; a delete of a deleted secret is done', async () => {
    const calls: unknown[] = [];
    let deleted = false;
    const client = {
      createSecret: async (request: unknown) => calls.push(['createSecret', request]),
      addSecretVersion: async (request: { parent: string; payload: { data: Buffer } }) => calls.push(['addSecretVersion', request.parent, request.payload.data.toString('utf8')]),
      deleteSecret: async (request: unknown) => {
        calls.push(['deleteSecret', request]);
        if (deleted) throw Object.assign(new Error('5 NOT_FOUND: Secret not found'), { code: 5 });
        deleted = true;
      },
    };
    const writer = new SecretManagerWriter('my-gcp-project', client);
    await writer.create('proj_a', 'webhook-whep_x-1', 'whsec_value');
    await writer.remove('proj_a', 'webhook-whep_x-1');
    await writer.remove('proj_a', 'webhook-whep_x-1');
    const name = 'projects/my-gcp-project/secrets/tessera-proj_a-webhook-whep_x-1';
    expect(calls).toEqual([
      ['createSecret', { parent: 'projects/my-gcp-project', secretId: 'tessera-proj_a-webhook-whep_x-1', secret: { replication: { automatic: {} } } }],
      ['addSecretVersion', name, 'whsec_value'],
      ['deleteSecret', { name }],
      ['deleteSecret', { name }],
    ]);
  });

  it('reports a failure by reference, never by value', async () => {
    const client = {
      createSecret: async () => {
        throw new Error('PERMISSION_DENIED');
      },
      addSecretVersion: async () => undefined,
      deleteSecret: async () => {
        throw Object.assign(new Error('PERMISSION_DENIED'), { code: 7 });
      },
    };
    const error = await new SecretManagerWriter('p', client).create('proj_a', 'webhook-whep_y-1', 'whsec_secretvalue').catch((e: Error) => e);
    expect(error).toBeInstanceOf(SecretUnavailableError);
    expect((error as Error).message).toContain('tessera-proj_a-webhook-whep_y-1');
    expect((error as Error).message).not.toContain('whsec_secretvalue');
    await expect(new SecretManagerWriter('p', client).remove('proj_a', 'webhook-whep_y-1')).rejects.toBeInstanceOf(SecretUnavailableError);
  });
});

describe('createOperatorSecretWriter', () => {
  it('writes to Secret Manager on production and locally against an emulator; TESSERA_SECRET_STORE overrides', () => {
    expect(createOperatorSecretWriter({ GCLOUD_PROJECT: 'prod' })).toBeInstanceOf(SecretManagerWriter);
    expect(createOperatorSecretWriter({ GCLOUD_PROJECT: 'demo', FIRESTORE_EMULATOR_HOST: '127.0.0.1:8080' })).toBeInstanceOf(LocalSecretWriter);
    expect(createOperatorSecretWriter({ GCLOUD_PROJECT: 'prod', TESSERA_SECRET_STORE: 'local' })).toBeInstanceOf(LocalSecretWriter);
    expect(createOperatorSecretWriter({ GCLOUD_PROJECT: 'demo', FIRESTORE_EMULATOR_HOST: 'h:1', TESSERA_SECRET_STORE: 'secret-manager' })).toBeInstanceOf(SecretManagerWriter);
    expect(() => createOperatorSecretWriter({})).toThrow(/GCLOUD_PROJECT/);
  });
});

describe('TESSERA_WEBHOOKS_ALLOW_LOOPBACK', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const name of ['TESSERA_WEBHOOKS_ALLOW_LOOPBACK', 'K_SERVICE', 'FUNCTIONS_EMULATOR']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it('is off by default, on when set locally, and refused on a deployed function', () => {
    delete process.env.TESSERA_WEBHOOKS_ALLOW_LOOPBACK;
    delete process.env.K_SERVICE;
    expect(loadSettings().webhooksAllowLoopback).toBe(false);
    process.env.TESSERA_WEBHOOKS_ALLOW_LOOPBACK = 'on';
    expect(loadSettings().webhooksAllowLoopback).toBe(true);
    process.env.K_SERVICE = 'serverapi';
    expect(() => loadSettings()).toThrow(/local development only/);
    process.env.TESSERA_WEBHOOKS_ALLOW_LOOPBACK = 'off';
    expect(loadSettings().webhooksAllowLoopback).toBe(false);
  });
});
