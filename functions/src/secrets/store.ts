import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../clock';
import { isDeployedFunction } from '../config/deployment';
import { REPO_ROOT } from '../config/paths';

/**
 * Rail credentials (Stripe secret keys, webhook signing secrets, service accounts) never live
 * in Firestore: project configuration holds a secret's *name*, and a SecretStore resolves it at
 * the moment of use, inside the project that names it. Values are never logged, returned or
 * printed; errors name the secret only.
 *
 * Tenants' secrets belong to their tenant: a name resolves only in its project's namespace, the
 * secret id `tessera-{projectId}-{name}` that the store builds (`projectSecretId`). No reference
 * can name another project's secret (nor any other secret of the Google Cloud project): there
 * is no full `projects/…/secrets/…` form.
 */
export interface SecretStore {
  /** The current value of project `projectId`'s secret `name`; throws SecretUnavailableError when it cannot be read. */
  read(projectId: string, name: string): Promise<string>;
}

export class SecretUnavailableError extends Error {
  constructor(
    readonly ref: string,
    reason: string,
  ) {
    super(`secret ${ref} is unavailable: ${reason}`);
    this.name = 'SecretUnavailableError';
  }
}

/** A secret's name as an operator gives it (rail settings) or Tessera mints it (webhook signing secrets). */
const SECRET_NAME = /^[A-Za-z0-9_-]{1,128}$/;
/**
 * Project ids that prefix a secret id unambiguously: no `-`, so `tessera-{projectId}-` ends at
 * the first `-` after the prefix and no two (project, name) pairs share an id. Every id Tessera
 * mints (`proj_` + base62) is one.
 */
const NAMESPACED_PROJECT_ID = /^[A-Za-z0-9_]{1,100}$/;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** The secret id (Secret Manager id, key of `.secrets.local.json`) of project `projectId`'s secret `name`. */
export function projectSecretId(projectId: string, name: string): string {
  if (!SECRET_NAME.test(name)) throw new SecretUnavailableError(name, 'not a secret name (letters, digits, _ and -; it resolves inside its own project only)');
  if (!NAMESPACED_PROJECT_ID.test(projectId)) throw new SecretUnavailableError(name, `project id ${projectId} cannot prefix a secret id`);
  return `tessera-${projectId}-${name}`;
}

/** How long a Secret Manager value is reused before it is read again (rotation shows up within this). */
export const SECRET_CACHE_MS = 60_000;

interface AccessClient {
  accessSecretVersion(request: { name: string }): Promise<[{ payload?: { data?: Uint8Array | string | null } | null }, ...unknown[]]>;
}

/** Production adapter: Google Secret Manager, each value cached briefly per instance. */
export class SecretManagerStore implements SecretStore {
  private readonly cache = new Map<string, { value: string; until: number }>();
  private client: AccessClient | null;

  constructor(
    private readonly clock: Clock,
    private readonly projectId: () => string | undefined = () => process.env.GCLOUD_PROJECT || process.env.GOOGLE_CLOUD_PROJECT,
    client?: AccessClient,
  ) {
    this.client = client ?? null;
  }

  async read(projectId: string, secretName: string): Promise<string> {
    const ref = projectSecretId(projectId, secretName);
    const name = this.resourceName(ref);
    const now = this.clock.now();
    const cached = this.cache.get(name);
    if (cached && cached.until > now) return cached.value;
    let value: string | undefined;
    try {
      const [response] = await (await this.accessClient()).accessSecretVersion({ name });
      const data = response.payload?.data;
      value = typeof data === 'string' ? data : data ? Buffer.from(data).toString('utf8') : undefined;
    } catch (err) {
      throw new SecretUnavailableError(ref, err instanceof Error ? err.message : 'Secret Manager request failed');
    }
    if (!value) throw new SecretUnavailableError(ref, 'the secret version is empty');
    this.cache.set(name, { value, until: now + SECRET_CACHE_MS });
    return value;
  }

  /** The latest version of the secret id, in the Google Cloud project the functions run in. */
  private resourceName(secretId: string): string {
    const project = this.projectId();
    if (!project) throw new SecretUnavailableError(secretId, 'no Google Cloud project to resolve the secret in');
    return `projects/${project}/secrets/${secretId}/versions/latest`;
  }

  private async accessClient(): Promise<AccessClient> {
    if (!this.client) {
      // Loaded on first use: groups that never read a secret do not pay for the client at cold start.
      const { SecretManagerServiceClient } = await import('@google-cloud/secret-manager');
      this.client = new SecretManagerServiceClient() as unknown as AccessClient;
    }
    return this.client;
  }
}

/** Git-ignored file of local secrets at the repository root: `{ "<secret id>": "<value>" }`. */
export const LOCAL_SECRETS_FILE = join(REPO_ROOT, '.secrets.local.json');

/** (`proj_demo`, `stripe-test-secret-key`) → `TESSERA_SECRET_TESSERA_PROJ_DEMO_STRIPE_TEST_SECRET_KEY`. */
export function secretEnvVarName(projectId: string, name: string): string {
  return `TESSERA_SECRET_${projectSecretId(projectId, name).toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/**
 * Local adapter (local runner, CLI, tests): an environment variable named after the secret id
 * first, then the git-ignored `.secrets.local.json` keyed by secret id. The file is re-read on
 * each call so edits apply without a restart.
 */
export class LocalSecretStore implements SecretStore {
  constructor(
    private readonly options: { environment?: Record<string, string | undefined>; file?: string | null } = {},
  ) {}

  async read(projectId: string, name: string): Promise<string> {
    const ref = projectSecretId(projectId, name);
    const envVar = secretEnvVarName(projectId, name);
    const environment = this.options.environment ?? process.env;
    const fromEnv = environment[envVar];
    if (fromEnv) return fromEnv;
    const file = this.options.file === undefined ? LOCAL_SECRETS_FILE : this.options.file;
    if (file && existsSync(file)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(readFileSync(file, 'utf8'));
      } catch {
        throw new SecretUnavailableError(ref, `${file} is not valid JSON`);
      }
      const value = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>)[ref] : undefined;
      if (typeof value === 'string' && value !== '') return value;
    }
    throw new SecretUnavailableError(ref, `set ${envVar} or add it to .secrets.local.json`);
  }
}

/**
 * The adapter for this process: `TESSERA_SECRET_STORE=secret-manager|local` when set;
 * otherwise Secret Manager on deployed Cloud Functions and the local adapter everywhere else.
 */
export function createSecretStore(clock: Clock, environment: Record<string, string | undefined> = process.env): SecretStore {
  const choice = environment.TESSERA_SECRET_STORE;
  if (choice !== undefined && choice !== '' && choice !== 'secret-manager' && choice !== 'local') {
    throw new Error(`Setting TESSERA_SECRET_STORE must be secret-manager or local, got '${choice}'.`);
  }
  const useSecretManager = choice ? choice === 'secret-manager' : isDeployedFunction(environment);
  return useSecretManager ? new SecretManagerStore(clock) : new LocalSecretStore();
}
