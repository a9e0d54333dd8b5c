import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../clock';
import { isDeployedFunction } from '../config/deployment';
import { REPO_ROOT } from '../local/paths';

/**
 * Rail credentials (Stripe secret keys, webhook signing secrets, service accounts) never live
 * in Firestore: project configuration holds a reference, and a SecretStore resolves it at the
 * moment of use. Values are never logged, returned or printed; errors name the reference only.
 */
export interface SecretStore {
  /** The secret's current value; throws SecretUnavailableError when it cannot be read. */
  read(ref: string): Promise<string>;
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

/**
 * References: a short secret id (`stripe-test-secret-key`, resolved in the current Google
 * Cloud project at version `latest`), or a full Secret Manager name
 * (`projects/P/secrets/S` or `projects/P/secrets/S/versions/V`).
 */
const SHORT_REF = /^[A-Za-z0-9_-]{1,255}$/;
const FULL_REF = /^projects\/([A-Za-z0-9_.:-]+)\/secrets\/([A-Za-z0-9_-]{1,255})(?:\/versions\/([A-Za-z0-9_-]+))?$/;

export function isSecretRef(ref: string): boolean {
  return SHORT_REF.test(ref) || FULL_REF.test(ref);
}

/** The secret id a reference names (the last meaningful segment). */
export function secretIdOf(ref: string): string {
  const full = FULL_REF.exec(ref);
  if (full) return full[2];
  if (SHORT_REF.test(ref)) return ref;
  throw new SecretUnavailableError(ref, 'not a secret reference');
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

  async read(ref: string): Promise<string> {
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

  private resourceName(ref: string): string {
    const full = FULL_REF.exec(ref);
    if (full) return `projects/${full[1]}/secrets/${full[2]}/versions/${full[3] ?? 'latest'}`;
    if (!SHORT_REF.test(ref)) throw new SecretUnavailableError(ref, 'not a secret reference');
    const project = this.projectId();
    if (!project) throw new SecretUnavailableError(ref, 'no Google Cloud project to resolve a short reference in');
    return `projects/${project}/secrets/${ref}/versions/latest`;
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

/** Git-ignored file of local secrets at the repository root: `{ "<ref>": "<value>" }`. */
export const LOCAL_SECRETS_FILE = join(REPO_ROOT, '.secrets.local.json');

/** `stripe-test-secret-key` → `TESSERA_SECRET_STRIPE_TEST_SECRET_KEY`. */
export function secretEnvVarName(ref: string): string {
  return `TESSERA_SECRET_${secretIdOf(ref).toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/**
 * Local adapter (local runner, CLI, tests): an environment variable named after the reference
 * first, then the git-ignored `.secrets.local.json`. The file is re-read on each call so edits
 * apply without a restart.
 */
export class LocalSecretStore implements SecretStore {
  constructor(
    private readonly options: { environment?: Record<string, string | undefined>; file?: string | null } = {},
  ) {}

  async read(ref: string): Promise<string> {
    const environment = this.options.environment ?? process.env;
    const fromEnv = environment[secretEnvVarName(ref)];
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
    throw new SecretUnavailableError(ref, `set ${secretEnvVarName(ref)} or add it to .secrets.local.json`);
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
