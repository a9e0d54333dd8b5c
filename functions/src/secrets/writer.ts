import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { LOCAL_SECRETS_FILE, SecretUnavailableError } from './store';

/**
 * Where operator commands put a secret that Tessera itself generates (webhook signing secrets):
 * the same stores `SecretStore` reads, under a short reference. The value is never logged,
 * stored in Firestore or returned by these functions.
 */
export interface SecretWriter {
  /** Stores `value` under the short reference `ref` (a new secret; fails when it exists). */
  create(ref: string, value: string): Promise<void>;
  /** Removes the secret (best effort cleanup after a failed write; absent is fine). */
  remove(ref: string): Promise<void>;
}

const WRITABLE_REF = /^[A-Za-z0-9_-]{1,255}$/;

function checkRef(ref: string): void {
  if (!WRITABLE_REF.test(ref)) throw new SecretUnavailableError(ref, 'a written secret needs a short reference');
}

/** Locally: the git-ignored `.secrets.local.json` that LocalSecretStore reads (owner-only permissions). */
export class LocalSecretWriter implements SecretWriter {
  constructor(private readonly file: string = LOCAL_SECRETS_FILE) {}

  async create(ref: string, value: string): Promise<void> {
    checkRef(ref);
    const secrets = this.readAll();
    if (ref in secrets) throw new SecretUnavailableError(ref, 'a secret with this reference exists');
    this.writeAll({ ...secrets, [ref]: value });
  }

  async remove(ref: string): Promise<void> {
    const secrets = this.readAll();
    if (!(ref in secrets)) return;
    delete secrets[ref];
    this.writeAll(secrets);
  }

  private readAll(): Record<string, string> {
    if (!existsSync(this.file)) return {};
    try {
      const parsed = JSON.parse(readFileSync(this.file, 'utf8')) as unknown;
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, string>;
    } catch {
      // fall through
    }
    throw new Error(`${this.file} is not a JSON object; fix or remove it.`);
  }

  /** Written beside and renamed into place, so a reader never sees half a file. */
  private writeAll(secrets: Record<string, string>): void {
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, this.file);
  }
}

interface SecretManagerWriteClient {
  createSecret(request: { parent: string; secretId: string; secret: { replication: { automatic: Record<string, never> } } }): Promise<unknown>;
  addSecretVersion(request: { parent: string; payload: { data: Buffer } }): Promise<unknown>;
  deleteSecret(request: { name: string }): Promise<unknown>;
}

/** Deployed: a Secret Manager secret per reference in the Google Cloud project, its value as version 1. */
export class SecretManagerWriter implements SecretWriter {
  private client: SecretManagerWriteClient | null;

  constructor(
    private readonly projectId: string,
    client?: SecretManagerWriteClient,
  ) {
    this.client = client ?? null;
  }

  async create(ref: string, value: string): Promise<void> {
    checkRef(ref);
    const client = await this.writeClient();
    const name = `projects/${this.projectId}/secrets/${ref}`;
    try {
      await client.createSecret({ parent: `projects/${this.projectId}`, secretId: ref, secret: { replication: { automatic: {} } } });
      await client.addSecretVersion({ parent: name, payload: { data: Buffer.from(value, 'utf8') } });
    } catch (err) {
      throw new SecretUnavailableError(ref, err instanceof Error ? err.message : 'Secret Manager request failed');
    }
  }

  async remove(ref: string): Promise<void> {
    checkRef(ref);
    await (await this.writeClient()).deleteSecret({ name: `projects/${this.projectId}/secrets/${ref}` });
  }

  private async writeClient(): Promise<SecretManagerWriteClient> {
    if (!this.client) {
      const { SecretManagerServiceClient } = await import('@google-cloud/secret-manager');
      this.client = new SecretManagerServiceClient() as unknown as SecretManagerWriteClient;
    }
    return this.client;
  }
}

/**
 * The writer of an operator command: Secret Manager when the command works on production data
 * (no emulator), the local file otherwise; `TESSERA_SECRET_STORE=secret-manager|local` overrides.
 * It mirrors where the service that later reads the secret looks (secrets/store.ts).
 */
export function createOperatorSecretWriter(environment: Record<string, string | undefined> = process.env): SecretWriter {
  const choice = environment.TESSERA_SECRET_STORE;
  const useSecretManager = choice ? choice === 'secret-manager' : !environment.FIRESTORE_EMULATOR_HOST;
  if (!useSecretManager) return new LocalSecretWriter();
  const project = environment.GCLOUD_PROJECT || environment.GOOGLE_CLOUD_PROJECT;
  if (!project) throw new Error('Writing to Secret Manager needs GCLOUD_PROJECT (the project the functions run in).');
  return new SecretManagerWriter(project);
}
