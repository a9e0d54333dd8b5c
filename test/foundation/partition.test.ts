/**
 * Guarantees of the partition by construction: handlers and services never hold the unscoped
 * Firestore handle. Only the modules that establish a scope (key lookup, task handlers, rail
 * target resolution, the retention worker, the CLI and the local runner) and the operator-only
 * domain code they call may import the handle module (`store/firestore.ts`), the `Firestore`
 * type, or `RootDeps` (Deps plus the handle); every other module under functions/src fails this
 * test. At run time a handler's `ctx.deps` carries no handle either.
 *
 * Scopes are opened only where a partition is established (`SCOPE_OPENERS`): the pipeline (from
 * the verified key, or an operator's authorised grant), task handlers (from the task payload),
 * rail target resolution (from a verified notification), the store's partition iterator (the
 * sweeps, id-only operator lookups, a project's two partitions) and the CLI. Everything else is
 * handed its scope.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { route } from '../../functions/src/http/route';
import { createServiceApp } from '../../functions/src/app/serviceApp';
import { createTestService } from '../support/harness';
import supertest from 'supertest';

const SRC = resolve(__dirname, '..', '..', 'functions', 'src');

/** Who may reach the unscoped handle, and why. Paths relative to functions/src; a trailing `/` is a folder. */
const ALLOWED: Record<string, string> = {
  'store/': 'the handle itself and EnvScope, which keeps it private',
  'app/deps.ts': 'builds the process’s Deps and RootDeps',
  'app/serviceApp.ts': 'builds the handlers’ view of RootDeps, without the handle',
  'index.ts': 'the deployed entry point hands RootDeps to task and retention functions',
  'keys/': 'key lookup establishes a request’s scope; keys and apps live outside any project',
  'tasks/': 'the task queue adapters',
  'app/taskHandlers.ts': 'task handlers establish their scope from the task payload',
  'identity/erasureModel.ts': 'the erasure ledger, read by the erasure task and the retention worker',
  'events/resolution.ts': 'the identity-resolution task handler',
  'retention/': 'the retention worker sweeps across partitions; the erasure task handler',
  'rails/target.ts': 'rail target resolution establishes a scope from a verified notification',
  'cli/': 'the operator CLI',
  'local/': 'the local runner and demo seed',
  'projects/': 'projects and apps are top-level records, created by operators (CLI, seed)',
  'identity/providerSetup.ts': 'operator command: a project’s identity provider',
  'identity/providerConfig.ts': 'the provider document, read by the token verifier port',
  'identity/transferPolicy.ts': 'operator command: a project’s subscription-transfer setting (rail decisions read it through their scope)',
  'identity/idTokens.ts': 'the token verifier port (built in app/deps.ts) reads a project’s provider',
  'events/retention.ts': 'operator command: a project’s telemetry retention',
  'ratelimit/bucketStore.ts': 'the limiter’s store port (built in app/deps.ts), run before a handler',
  'webhooks/locate.ts': 'operator commands: a webhook endpoint or event id finds its partition',
  'webhooks/deliver.ts': 'the webhook delivery task handler establishes its scope from the task payload',
  'webhooks/fanout.ts': 'the webhook fan-out task handler establishes its scope from the task payload',
  'webhooks/relay.ts': 'the outbox relay (webhook worker) sweeps events across partitions',
  'app/workers/': 'the scheduled webhook worker',
  'webhooks/secretRetirement.ts': 'the webhook worker deletes signing secrets whose grace ended, across partitions',
  'entitlements/expirySweep.ts': 'the webhook worker finds due entitlement expiries across partitions',
  'dashboard/authenticator.ts': 'the dashboard’s operator gate (built in app/deps.ts): reads operator grants, opens the console of an authorised project',
  'dashboard/console.ts': 'operator commands from the dashboard: the same operator services as the CLI, bound to one authorised project and environment',
  'dashboard/operators.ts': 'operator command: the operator registry (tessera operators add|list|remove)',
  'bench/': 'benchmarks (leaving functions/src: issue 12 §4)',
};

/** Who may open a scope (`new EnvScope`), and from what. Paths relative to functions/src; a trailing `/` is a folder. */
const SCOPE_OPENERS: Record<string, string> = {
  'store/': 'EnvScope itself and the partition iterator (store/partitions.ts): sweeps, id-only operator lookups, a project’s two partitions',
  'keys/authenticate.ts': 'the pipeline: the verified API key’s partition',
  'dashboard/console.ts': 'the pipeline’s operator path: the partition of the operator’s authorised grant',
  'rails/target.ts': 'the partition of a verified rail notification',
  'retention/erasure.ts': 'the erasure task handler: the task payload’s partition',
  'events/resolution.ts': 'the identity-resolution task handler: the task payload’s partition',
  'webhooks/fanout.ts': 'the webhook fan-out task handler: the task payload’s partition',
  'webhooks/deliver.ts': 'the webhook delivery task handler: the task payload’s partition',
  'cli/': 'the operator CLI: --project and --env, or the partition an id names',
  'local/': 'the local runner and demo seed',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** What in `source` (the file at `file`) reaches the unscoped handle. */
export function handleImports(file: string, source: string): string[] {
  const found: string[] = [];
  const specifiers = [...source.matchAll(/(?:from\s+|import\s*\(\s*)'([^']+)'/g)].map((m) => m[1]);
  for (const specifier of specifiers) {
    if (specifier.startsWith('.') && relative(SRC, resolve(file, '..', specifier)).replace(/\\/g, '/') === 'store/firestore') found.push(`imports ${specifier}`);
  }
  for (const match of source.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*'firebase-admin\/firestore'/g)) {
    if (match[1].split(',').some((name) => /^(?:type\s+)?Firestore(?:\s+as\s+\w+)?$/.test(name.trim()))) found.push('imports the Firestore type');
  }
  if (/\bRootDeps\b/.test(source)) found.push('names RootDeps');
  if (/\bBackgroundDeps\b/.test(source)) found.push('names BackgroundDeps');
  return found;
}

const listed = (list: Record<string, string>, path: string): boolean => Object.keys(list).some((entry) => (entry.endsWith('/') ? path.startsWith(entry) : path === entry));
const allowed = (path: string): boolean => listed(ALLOWED, path);
const opensScopes = (path: string): boolean => listed(SCOPE_OPENERS, path);

/** Lines of `source` that open a scope by hand (`new EnvScope(…)`, or a subclass of it). */
export function scopeOpenings(source: string): number[] {
  return source.split('\n').flatMap((line, i) => (/\bnew\s+EnvScope\b|\bextends\s+EnvScope\b/.test(line) ? [i + 1] : []));
}

it('lets only scope-establishing and operator modules reach the unscoped Firestore handle', () => {
  const offenders = sourceFiles(SRC)
    .map((file) => ({ path: relative(SRC, file).replace(/\\/g, '/'), found: handleImports(file, readFileSync(file, 'utf8')) }))
    .filter(({ path, found }) => found.length > 0 && !allowed(path))
    .map(({ path, found }) => `${path}: ${found.join(', ')}`);
  expect(offenders).toEqual([]);
});

it('recognises each way of reaching the handle (so the scan can fail)', () => {
  const handler = join(SRC, 'events', 'someRoute.ts');
  expect(handleImports(handler, "import { db } from '../store/firestore';")).toEqual(['imports ../store/firestore']);
  expect(handleImports(handler, "const { db } = await import('../store/firestore');")).toEqual(['imports ../store/firestore']);
  expect(handleImports(handler, "import type { DocumentReference, Firestore } from 'firebase-admin/firestore';")).toEqual(['imports the Firestore type']);
  expect(handleImports(handler, "import type { RootDeps } from '../app/deps';")).toEqual(['names RootDeps']);
  expect(handleImports(handler, "import type { DocumentReference } from 'firebase-admin/firestore';\nimport { EnvScope } from '../store/scope';")).toEqual([]);
  expect(allowed('events/someRoute.ts')).toBe(false);
  expect(allowed('keys/authenticate.ts')).toBe(true);
});

it('opens scopes only where a partition is established', () => {
  const offenders = sourceFiles(SRC)
    .map((file) => ({ path: relative(SRC, file).replace(/\\/g, '/'), lines: scopeOpenings(readFileSync(file, 'utf8')) }))
    .filter(({ path, lines }) => lines.length > 0 && !opensScopes(path))
    .map(({ path, lines }) => `${path}:${lines.join(',')}`);
  expect(offenders).toEqual([]);
});

it('recognises a hand-built scope (so the scan can fail)', () => {
  expect(scopeOpenings("import { EnvScope } from '../store/scope';\nconst scope = new EnvScope(db, projectId, env);")).toEqual([2]);
  expect(scopeOpenings('class Wider extends EnvScope {}')).toEqual([1]);
  expect(scopeOpenings('export async function list(scope: EnvScope): Promise<void> {}')).toEqual([]);
  expect(opensScopes('reports/customersReport.ts')).toBe(false);
  expect(opensScopes('webhooks/relay.ts')).toBe(false);
  expect(opensScopes('store/partitions.ts')).toBe(true);
});

it('gives handlers Deps without the unscoped handle, even at run time', async () => {
  const service = createTestService();
  let seen: object | null = null;
  const probe = route({ method: 'GET', path: '/v1/test/deps', key: 'none', handler: async (ctx) => ((seen = ctx.deps), { body: {} }) });
  await supertest(createServiceApp([probe], service.deps)).get('/v1/test/deps').expect(200);
  expect(seen).not.toBeNull();
  expect('db' in seen!).toBe(false);
  expect(Object.values(seen!).some((value) => value === service.deps.db)).toBe(false);
});
