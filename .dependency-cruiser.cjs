/**
 * The layers of functions/src (docs/architecture.md opens with the picture): imports only point
 * down, type-only imports included. `npm test` runs this (npm run lint:layers); a rule broken is
 * a failed build. Paths are relative to the repository root.
 */
const SRC = '^functions/src/';
const any = (folders) => `${SRC}(${folders.join('|')})(/|\\.ts$)`;

const KERNEL = ['boundedMap', 'clock', 'config', 'errors', 'ids', 'wire'];
const PLATFORM_ORDER = [
  // each may import the kernel and the platform folders listed before it
  ['store', []],
  ['secrets', ['store']],
  ['tasks', ['store']],
  ['ratelimit', ['store']],
  ['audit', ['store']],
  ['projects', ['store', 'audit']],
  ['keys', ['store', 'audit', 'projects']],
];
const PLATFORM = PLATFORM_ORDER.map(([name]) => name);
/** Domain capabilities and the capabilities each may use (customers < entitlements < identity < events; entitlements < rails < purchases). */
const DOMAIN_ORDER = [
  ['customers', []],
  ['webhooks', []],
  ['entitlements', ['customers', 'webhooks']],
  ['identity', ['customers', 'webhooks', 'entitlements']],
  ['sdk', []],
  ['events', ['customers', 'webhooks', 'entitlements', 'identity', 'sdk']],
  ['rails', ['customers', 'webhooks', 'entitlements', 'identity']],
  ['purchases', ['customers', 'webhooks', 'entitlements', 'identity', 'rails']],
  ['sourcemaps', []],
  ['migration', ['customers', 'webhooks', 'entitlements', 'identity', 'rails']],
  ['reports', ['customers', 'entitlements', 'identity', 'sourcemaps']],
];
const DOMAIN = DOMAIN_ORDER.map(([name]) => name);
/** A capability's own domain code: its folder minus its http/ adapter. */
const domainOf = (name) => `${SRC}${name}/(?!http/)`;

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'No import circles, type-only imports included.', from: { path: SRC }, to: { circular: true } },
    {
      name: 'kernel-imports-only-kernel', severity: 'error',
      comment: 'boundedMap, clock, config, errors, ids and wire depend on nothing of the service.',
      from: { path: any(KERNEL) }, to: { path: SRC, pathNot: any(KERNEL) },
    },
    ...PLATFORM_ORDER.map(([name, below]) => ({
      name: `platform-${name}-points-down`, severity: 'error',
      comment: `${name}/ may import the kernel${below.length ? ` and ${below.join(', ')}` : ''}.`,
      from: { path: `${SRC}${name}/(?!http/)` },
      to: { path: SRC, pathNot: [any(KERNEL), `${SRC}${name}/`, ...(below.length ? [any(below)] : [])] },
    })),
    ...DOMAIN_ORDER.map(([name, below]) => ({
      name: `domain-${name}-points-down`, severity: 'error',
      comment: `${name}/ (its domain code) may import the kernel, the platform${below.length ? ` and ${below.join(', ')}` : ''}: never http/, app/, an adapter or a capability above it.`,
      from: { path: domainOf(name) },
      to: { path: SRC, pathNot: [any(KERNEL), `${SRC}(${PLATFORM.join('|')})/(?!http/)`, `${SRC}${name}/(?!http/)`, ...below.map(domainOf)] },
    })),
    {
      name: 'http-imports-no-capability', severity: 'error',
      comment: 'The pipeline knows the platform and the kernel only; capabilities plug in through route specs and ports.',
      from: { path: `${SRC}http/` }, to: { path: SRC, pathNot: [`${SRC}http/`, any(KERNEL), `${SRC}(${PLATFORM.join('|')})/(?!http/)`] },
    },
    {
      name: 'adapters-point-down', severity: 'error',
      comment: 'Route files, dashboard/ and retention/ may use http/, the domain, the platform and the kernel; never app/, an entry point or another capability\'s routes.',
      from: { path: `${SRC}([^/]+/http/|dashboard/|retention/)` },
      to: { path: `${SRC}(app/|cli/|local/|index\\.ts)` },
    },
    {
      name: 'route-files-only-from-app', severity: 'error',
      comment: 'Only app/ (the group registry) mounts route files.',
      from: { path: SRC, pathNot: [`${SRC}app/`, `${SRC}[^/]+/http/`, `${SRC}dashboard/`] },
      to: { path: `${SRC}[^/]+/http/` },
    },
    {
      name: 'route-files-not-across-capabilities', severity: 'error',
      comment: 'A capability\'s routes do not import another capability\'s routes.',
      from: { path: `${SRC}([^/]+)/http/` }, to: { path: `${SRC}[^/]+/http/`, pathNot: `${SRC}$1/http/` },
    },
    {
      name: 'root-only-under-entry', severity: 'error',
      comment: 'app/ is imported only by the entry points (index.ts, cli/, local/).',
      from: { path: SRC, pathNot: [`${SRC}(app/|cli/|local/|index\\.ts)`] }, to: { path: `${SRC}app/` },
    },
    {
      name: 'local-is-dev-only', severity: 'error',
      comment: 'Only local/ and cli/ import local/ (the local runner never ships in a request path).',
      from: { path: SRC, pathNot: [`${SRC}(local|cli)/`] }, to: { path: `${SRC}local/` },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: SRC,
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'functions/tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
