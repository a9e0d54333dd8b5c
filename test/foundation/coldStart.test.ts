/**
 * Guarantees of the deployed entry point's cold start: loading functions/lib/index.js (what
 * every instance of every function does first) loads none of the capabilities' code, and a
 * group function's first request loads its own group's routes and no other group's.
 * Checked in a fresh Node process, where the require cache shows what was loaded.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { GROUP_LOADERS } from '../../functions/src/app/groupLoaders';
import { GROUPS, type GroupName } from '../../functions/src/app/groups';
import { functionsDotEnv } from '../support/functionsEnv';

const run = promisify(execFile);
const LIB = join(__dirname, '..', '..', 'functions', 'lib');

/** Our modules in the require cache after loading index.js and, optionally, a group's first request. */
async function loadedModules(group?: GroupName): Promise<string[]> {
  const script = `
    const path = require('node:path');
    const lib = ${JSON.stringify(LIB)};
    require(path.join(lib, 'index.js'));
    (async () => {
      if (process.argv[1]) await require(path.join(lib, 'app', 'groupLoaders.js')).GROUP_LOADERS[process.argv[1]]();
      const ours = Object.keys(require.cache).filter((k) => k.startsWith(lib + path.sep)).map((k) => path.relative(lib, k).split(path.sep).join('/'));
      // Third-party packages by name, for the libraries that must load only when used.
      const packageName = (file) => { const rest = file.split(path.sep + 'node_modules' + path.sep).pop().split(path.sep); return rest[0].startsWith('@') ? rest[0] + '/' + rest[1] : rest[0]; };
      const packages = Object.keys(require.cache).filter((k) => k.includes(path.sep + 'node_modules' + path.sep)).map((k) => 'package:' + packageName(k));
      ours.push(...new Set(packages));
      process.stdout.write(JSON.stringify(ours));
    })();`;
  const { stdout } = await run(process.execPath, ['-e', script, group ?? ''], { env: { ...process.env, ...functionsDotEnv() } });
  return JSON.parse(stdout) as string[];
}

const routeFiles = (modules: string[]) => modules.filter((m) => m.endsWith('/routes.js')).sort();
const ourModules = (modules: string[]) => modules.filter((m) => !m.startsWith('package:'));

it('loads no capability code when an instance loads index.js', async () => {
  // app/workers/scheduled.js: the scheduled workers' names and schedules; each worker's code loads only when it runs.
  expect(ourModules(await loadedModules()).sort()).toEqual(['app/workers/scheduled.js', 'config/region.js', 'index.js', 'retention/schedule.js', 'store/rollups/compactionSchedule.js', 'tasks/queue.js', 'webhooks/outboxSchedule.js']);
}, 30_000);

it.each(Object.keys(GROUP_LOADERS) as GroupName[])('loads only its own routes on the first request of %s', async (group) => {
  const expected: Record<GroupName, string[]> = {
    platform: ['sdk/http/routes.js'],
    identity: ['identity/http/routes.js'],
    events: ['events/http/routes.js'],
    purchases: ['purchases/http/routes.js'],
    server: ['entitlements/http/routes.js', 'identity/http/routes.js'],
    sourcemaps: ['sourcemaps/http/routes.js'],
    webhooks: ['rails/http/routes.js'],
    dashboard: ['dashboard/routes.js'],
    reports: ['reports/http/routes.js'],
  };
  expect(routeFiles(await loadedModules(group))).toEqual(expected[group]);
}, 30_000);

// The document is generated at build time: serving it loads neither the generator nor the registry.
it('loads the OpenAPI route but not its generator on the first request of platform', async () => {
  const loaded = ourModules(await loadedModules('platform'));
  expect(loaded.filter((m) => m.startsWith('app/')).sort()).toEqual(['app/groupLoaders.js', 'app/openapi/file.js', 'app/openapi/route.js', 'app/workers/scheduled.js']);
}, 30_000);

// Stripe's and Apple's libraries (~300 ms together) load with the first request that uses them,
// and Ajv with the first request that validates a body or query.
it.each(Object.keys(GROUP_LOADERS) as GroupName[])('loads no rail library and no Ajv before a request of %s needs them', async (group) => {
  const loaded = await loadedModules(group);
  for (const name of ['stripe', '@apple/app-store-server-library', 'ajv', 'ajv-formats']) expect(loaded).not.toContain(`package:${name}`);
}, 30_000);

it('loads on demand exactly the routes the local runner mounts for each group', async () => {
  for (const [group, load] of Object.entries(GROUP_LOADERS) as [GroupName, () => Promise<unknown[]>][]) {
    expect(await load()).toEqual(GROUPS[group]);
  }
});
