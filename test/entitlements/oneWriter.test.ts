/**
 * Guarantee that entitlements have one writer: no module of functions/src other than
 * entitlements/writer.ts names the grants, projections or entitlement change collections
 * (only the model files and the read helpers of projection.ts do), and nothing outside the
 * writer passes a grant, projection or change record reference to a write. A new path that
 * changes entitlements has to go through `applyGrantChanges`, which keeps the projection and
 * the change feed in step with the grants.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const SRC = join(__dirname, '..', '..', 'functions', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const files = sourceFiles(SRC).map((path) => ({ path: relative(SRC, path).split('\\').join('/'), text: readFileSync(path, 'utf8') }));
const WRITER = 'entitlements/writer.ts';
/** Where the collection names may appear: their definitions, the read helpers, the writer. */
// expirySweep.ts only queries projections across partitions for a due expiry; the expiry is written by the writer.
// wire/dashboard.ts names `grants` as a field of the dashboard's customer answer (a JSON schema), no collection.
const NAMING_ALLOWED = new Set(['entitlements/model.ts', 'entitlements/changeModel.ts', 'entitlements/projection.ts', 'entitlements/expirySweep.ts', 'wire/dashboard.ts', WRITER]);

it('finds the source tree', () => {
  expect(files.map((f) => f.path)).toContain(WRITER);
  expect(files.length).toBeGreaterThan(50);
});

it('names the grants, projections and change collections only in the model, the read helpers and the writer', () => {
  const naming = /\b(GRANTS|PROJECTIONS|ENTITLEMENT_CHANGES)\b|['"`](grants|projections|entitlementChanges)['"`/]/;
  const offenders = files.filter((f) => !NAMING_ALLOWED.has(f.path) && naming.test(f.text)).map((f) => f.path);
  expect(offenders).toEqual([]);
});

it('writes a grant, projection or change record reference nowhere but in the writer', () => {
  const write = /\.(set|create|update|delete)\(\s*(grantRef|projectionRef|changeRecordRef)\(/;
  const offenders = files.filter((f) => f.path !== WRITER && write.test(f.text)).map((f) => f.path);
  expect(offenders).toEqual([]);
});

it('keeps projection.ts to reads', () => {
  const projection = files.find((f) => f.path === 'entitlements/projection.ts')!;
  expect(projection.text).not.toMatch(/\btx\.(set|create|update|delete)\(|\.(set|create|update|delete)\(\s*(scope\.)?doc\(/);
});
