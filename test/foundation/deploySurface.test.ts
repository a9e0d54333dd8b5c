/**
 * Guarantees of the deployment surface: the compiled entry point exports one function per
 * endpoint group, every Hosting rewrite targets an exported function, and every route (with
 * and without /v1, legacy aliases included) is rewritten to the function of its own group.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GROUP_FUNCTIONS } from '../../functions/src/app/groupNames';
import { GROUPS, type GroupName } from '../../functions/src/app/groups';
import { SCHEDULED_WORKERS } from '../../functions/src/app/workers/scheduled';
import { functionsDotEnv, requireDeployedEntry } from '../support/functionsEnv';

const root = join(__dirname, '..', '..');
const firebaseJson = JSON.parse(readFileSync(join(root, 'firebase.json'), 'utf8'));
const rewrites: { source: string; function: { functionId: string; region: string } }[] = firebaseJson.hosting.rewrites;

/** Firebase Hosting glob: `**` any path, `*` one segment. */
function globToRegExp(glob: string): RegExp {
  const body = glob
    .split('**')
    .map((part) => part.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*'))
    .join('.*');
  return new RegExp(`^${body}$`);
}

function functionFor(path: string): string | undefined {
  return rewrites.find((r) => globToRegExp(r.source).test(path))?.function.functionId;
}

it('targets Node 22 and exports one function per endpoint group', () => {
  expect(firebaseJson.functions[0].runtime).toBe('nodejs22');
  // The compiled entry point, as deployed (npm test builds it first).
  const entry = requireDeployedEntry();
  for (const name of Object.values(GROUP_FUNCTIONS)) expect(typeof entry[name]).toBe('function');
  for (const rewrite of rewrites) expect(typeof entry[rewrite.function.functionId]).toBe('function');
});

it('deploys every scheduled worker of app/workers/scheduled.ts on its schedule, and no other', () => {
  type Deployed = { __endpoint?: { scheduleTrigger?: { schedule?: string }; timeoutSeconds?: number } };
  const entry = requireDeployedEntry() as Record<string, Deployed>;
  const scheduled = Object.entries(entry).filter(([, fn]) => (fn as unknown as Deployed | undefined)?.__endpoint?.scheduleTrigger !== undefined);
  expect(scheduled.map(([name]) => name).sort()).toEqual(Object.values(SCHEDULED_WORKERS).map((worker) => worker.function).sort());
  for (const worker of Object.values(SCHEDULED_WORKERS)) {
    const endpoint = entry[worker.function].__endpoint!;
    expect([worker.function, endpoint.scheduleTrigger!.schedule, endpoint.timeoutSeconds]).toEqual([worker.function, worker.schedule, worker.timeoutSeconds]);
  }
});

it('deploys every function, and points every rewrite, to the one region of functions/.env', () => {
  const region = functionsDotEnv().TESSERA_REGION;
  expect(region).toMatch(/^[a-z]+-[a-z]+\d+$/);
  type Deployed = { __endpoint?: { region?: string[] } };
  const exported = Object.values(requireDeployedEntry()).filter((value): value is Deployed => typeof value === 'function' && '__endpoint' in value);
  expect(exported.length).toBeGreaterThan(0);
  for (const fn of exported) expect(fn.__endpoint!.region).toEqual([region]);
  for (const rewrite of rewrites) expect([rewrite.source, rewrite.function.region]).toEqual([rewrite.source, region]);
});

it('rewrites every route, with and without /v1, to its own group', () => {
  for (const [group, routes] of Object.entries(GROUPS) as [GroupName, (typeof GROUPS)[GroupName]][]) {
    for (const route of routes) {
      for (const path of [route.path, ...(route.aliases ?? [])]) {
        const concrete = path.replace(/:[A-Za-z]+/g, 'sample_1');
        expect([concrete, functionFor(concrete)]).toEqual([concrete, GROUP_FUNCTIONS[group]]);
        const bare = concrete.replace(/^\/v1/, '');
        expect([bare, functionFor(bare)]).toEqual([bare, GROUP_FUNCTIONS[group]]);
      }
    }
  }
});

it('sends unknown paths to a function that answers them (400, never a Hosting 404)', () => {
  expect(functionFor('/v1/not/a/route')).toBe(GROUP_FUNCTIONS.platform);
});

it('denies all client access in firestore.rules', () => {
  const rules = readFileSync(join(root, 'firestore.rules'), 'utf8');
  expect(rules).toMatch(/allow read, write: if false;/);
  expect(rules).not.toMatch(/if true/);
});

it('declares a TTL policy for every collection that expires records', () => {
  const indexes = JSON.parse(readFileSync(join(root, 'firestore.indexes.json'), 'utf8'));
  const ttl = indexes.fieldOverrides.filter((o: { ttl?: boolean }) => o.ttl).map((o: { collectionGroup: string; fieldPath: string }) => `${o.collectionGroup}.${o.fieldPath}`);
  expect(ttl.sort()).toEqual(['audit.expiresAt', 'entitlementChanges.expiresAt', 'errorPasses.expiresAt', 'eventBatches.expiresAt', 'events.expiresAt', 'idempotency.expiresAt', 'webhookDeliveries.expiresAt', 'webhookEvents.expiresAt']);
});
