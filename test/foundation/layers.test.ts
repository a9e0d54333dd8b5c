/**
 * The layer rules (.dependency-cruiser.cjs, run by `npm run lint:layers` in `npm test`) catch
 * what they promise: a synthetic tree with one import of each forbidden kind yields exactly those
 * violations, so a rule that silently stopped matching (a path pattern, a folder renamed) fails here.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const REPO = resolve(__dirname, '..', '..');
const CONFIG = join(REPO, '.dependency-cruiser.cjs');
const DEPCRUISE = join(REPO, 'node_modules', '.bin', 'depcruise');

/** file → the modules it imports (relative to functions/src). */
const TREE: Record<string, string[]> = {
  'clock.ts': [],
  'http/route.ts': ['identity/service'], // http imports a capability
  'identity/service.ts': ['http/route'], // domain imports http (and closes a circle)
  'entitlements/writer.ts': ['identity/service'], // a capability imports one above it
  'store/scope.ts': ['keys/lookup'], // platform imports a platform folder above it
  'keys/lookup.ts': ['clock'],
  'webhooks/fanout.ts': ['app/deps'], // domain imports the root
  'app/deps.ts': ['clock'],
  'events/ingest.ts': ['events/http/route'], // domain imports its own route file
  'events/http/route.ts': ['http/route'],
  'reports/http/route.ts': ['events/http/route'], // one capability's routes import another's
  'sdk/liveness.ts': ['local/paths'], // the deployed code imports the dev-only runner
  'local/paths.ts': [],
  'wire/schemas.ts': ['store/scope'], // the kernel imports the platform
};

function violations(): string[] {
  const root = mkdtempSync(join(tmpdir(), 'layers-'));
  try {
    for (const [file, imports] of Object.entries(TREE)) {
      const path = join(root, 'functions', 'src', file);
      mkdirSync(dirname(path), { recursive: true });
      const depth = file.split('/').length - 1;
      const up = depth === 0 ? './' : '../'.repeat(depth);
      writeFileSync(path, imports.map((m, i) => `import * as m${i} from '${up}${m}';\nexport const use${i} = m${i};\n`).join('') + 'export const here = 1;\n');
    }
    writeFileSync(join(root, 'functions', 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'commonjs', target: 'es2022', strict: true }, include: ['src'] }));
    let out: string;
    try {
      out = execFileSync(DEPCRUISE, ['functions/src', '--config', CONFIG, '--output-type', 'json'], { cwd: root, encoding: 'utf8' });
    } catch (err) {
      out = (err as { stdout: string }).stdout; // non-zero exit: violations found
    }
    const result = JSON.parse(out) as { summary: { violations: { rule: { name: string }; from: string; to: string }[] } };
    return result.summary.violations.map((v) => `${v.rule.name}: ${v.from.replace('functions/src/', '')} -> ${v.to.replace('functions/src/', '')}`).sort();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

it('reports each forbidden import of a synthetic tree, and nothing else', () => {
  expect(violations()).toEqual(
    [
      'domain-entitlements-points-down: entitlements/writer.ts -> identity/service.ts',
      'domain-events-points-down: events/ingest.ts -> events/http/route.ts',
      'domain-identity-points-down: identity/service.ts -> http/route.ts',
      'domain-sdk-points-down: sdk/liveness.ts -> local/paths.ts',
      'domain-webhooks-points-down: webhooks/fanout.ts -> app/deps.ts',
      'http-imports-no-capability: http/route.ts -> identity/service.ts',
      'kernel-imports-only-kernel: wire/schemas.ts -> store/scope.ts',
      'local-is-dev-only: sdk/liveness.ts -> local/paths.ts',
      'no-circular: http/route.ts -> identity/service.ts',
      'platform-store-points-down: store/scope.ts -> keys/lookup.ts',
      'root-only-under-entry: webhooks/fanout.ts -> app/deps.ts',
      'route-files-not-across-capabilities: reports/http/route.ts -> events/http/route.ts',
      'route-files-only-from-app: events/ingest.ts -> events/http/route.ts',
    ].sort(),
  );
}, 60_000);
