import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { LOCAL_SECRETS_FILE, projectSecretId, SecretUnavailableError } from './store';

/**
 * Where Tessera puts a secret it generates itself (webhook signing secrets): the same stores
 * `SecretStore` reads, in the project's namespace (`tessera-{projectId}-{name}`), so the
 * secret's id carries its project. The value is never logged, stored in Firestore or returned
 * by these functions.
 */
export interface SecretWriter {
  /** Stores `value` as project `projectId`'s secret `name` (a new secret; fails when it exists). */
  create(projectId: string, name: string, value: string): Promise<void>;
  /** Deletes the secret (a failed write's cleanup, a signing secret whose grace ended); absent is fine. */
  remove(projectId: string, name: string): Promise<void>;
}

/** Locally: the git-ignored `.secrets.local.json` that LocalSecretStore reads (owner-only permissions). */
export class LocalSecretWriter implements SecretWriter {
  constructor(private readonly file: string = LOCAL_SECRETS_FILE) {}

  async create(projectId: string, name: string, value: string): Promise<void> {
    const ref = projectSecretId(projectId, name);
    const secrets = this.readAll();
    if (ref in secrets) throw new SecretUnavailableError(ref, 'a secret with this reference exists');
    this.writeAll({ ...secrets, [ref]: value });
  }

  async remove(projectId: string, name: string): Promise<void> {
    const ref = projectSecretId(projectId, name);
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

/** gRPC status of a secret that does not exist. */
const NOT_FOUND = 5;

/** Deployed: a Secret Manager secret per reference in the Google Cloud project, its value as version 1. */
export class SecretManagerWriter implements SecretWriter {
  private client: SecretManagerWriteClient | null;

  constructor(
    private readonly projectId: string,
    client?: SecretManagerWriteClient,
  ) {
    this.client = client ?? null;
  }

  async create(projectId: string, secretName: string, value: string): Promise<void> {
    const ref = projectSecretId(projectId, secretName);
    const client = await this.writeClient();
    const name = `projects/${this.projectId}/secrets/${ref}`;
    try {
      await client.createSecret({ parent: `projects/${this.projectId}`, secretId: ref, secret: { replication: { automatic: {} } } });
      await client.addSecretVersion({ parent: name, payload: { data: Buffer.from(value, 'utf8') } });
    } catch (err) {
      throw new SecretUnavailableError(ref, err instanceof Error ? err.message : 'Secret Manager request failed');
    }
  }

  async remove(projectId: string, secretName: string): Promise<void> {
    const ref = projectSecretId(projectId, secretName);
    try {
      await (await this.writeClient()).deleteSecret({ name: `projects/${this.projectId}/secrets/${ref}` });
    } catch (err) {
      if ((err as { code?: unknown }).code === NOT_FOUND) return; // deleted already (a retried retirement)
      throw new SecretUnavailableError(ref, err instanceof Error ? err.message : 'Secret Manager request failed');
    }
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

/**
 * The process's writer, chosen at its first use (most processes never write a secret, and the
 * choice may need GCLOUD_PROJECT): what the dashboard's endpoint changes and the webhook
 * worker's retirement of expired signing secrets write through.
 */
export function deferredOperatorSecretWriter(environment: Record<string, string | undefined> = process.env): SecretWriter {
  let writer: SecretWriter | null = null;
  const chosen = () => (writer ??= createOperatorSecretWriter(environment));
  return {
    create: (projectId, name, value) => chosen().create(projectId, name, value),
    remove: (projectId, name) => chosen().remove(projectId, name),
  };
}
