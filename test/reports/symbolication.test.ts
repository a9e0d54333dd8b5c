/**
 * Guarantee of GET /v1/reports/errors/{fingerprint}: the latest sample's stack, a real error
 * thrown by a small esbuild-built (minified) program, is resolved at read time through the
 * source maps uploaded for that sample's release — even maps uploaded after the error arrived —
 * to the original files, lines and names; frames no map covers (Node's own) are kept as
 * received, with the reason; a release without maps leaves every frame as received.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { createTestService, seedProject, type SeededProject, type TestService } from '../support/harness';
import { postEvents } from '../events/support';
import { UPLOAD_PATH } from '../sourcemaps/fixtures';
import { report } from './support';

const SOURCES: Record<string, string> = {
  'src/pricing.ts': [
    'export function unitPrice(plan: string): number {',
    "  const prices: Record<string, number> = { basic: 300, pro: 900 };",
    '  const price = prices[plan];',
    "  if (price === undefined) throw new TypeError(`unknown plan ${plan}`); // THROW_SITE",
    '  return price;',
    '}',
  ].join('\n'),
  'src/main.ts': [
    "import { unitPrice } from './pricing';",
    '',
    'function quote(plan: string, seats: number): number {',
    '  return unitPrice(plan) * seats; // CALL_PRICE',
    '}',
    '',
    'try {',
    "  quote('enterprise', 3); // CALL_QUOTE",
    '} catch (err) {',
    '  process.stdout.write(JSON.stringify({ stack: (err as Error).stack }));',
    '}',
  ].join('\n'),
};
const lineOf = (path: string, marker: string) => SOURCES[path].split('\n').findIndex((line) => line.includes(marker)) + 1;

let service: TestService;
let project: SeededProject;
let workDir: string;
let stack: string;
let bundle: string;

beforeAll(async () => {
  service = createTestService();
  project = await seedProject(service);
  workDir = mkdtempSync(join(tmpdir(), 'tessera-reports-'));
  for (const [path, text] of Object.entries(SOURCES)) {
    mkdirSync(dirname(join(workDir, path)), { recursive: true });
    writeFileSync(join(workDir, path), text);
  }
  bundle = join(workDir, 'dist', 'app.js');
  await build({ entryPoints: [join(workDir, 'src/main.ts')], outfile: bundle, bundle: true, format: 'cjs', platform: 'node', minify: true, sourcemap: true, logLevel: 'silent' });
  stack = (JSON.parse(execFileSync(process.execPath, [bundle], { encoding: 'utf8' })) as { stack: string }).stack;
});

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

async function reportError(eventId: string, release: string): Promise<void> {
  const res = await postEvents(service, project, {
    events: [{ eventId, name: 'uncaught_error', level: 'error', developerUserId: 'user-1', properties: { errorType: 'TypeError', message: 'unknown plan enterprise', stack }, tags: { release } }],
  });
  expect(res.status).toBe(202);
  await service.tasks.drain();
}

async function uploadMaps(release: string): Promise<void> {
  const outDir = dirname(bundle);
  const files = readdirSync(outDir)
    .filter((name) => name.endsWith('.map'))
    .map((name) => ({ fileUrl: pathToFileURL(join(outDir, name.slice(0, -4))).href, sourceMap: readFileSync(join(outDir, name)).toString('base64') }));
  const res = await service.request().post(UPLOAD_PATH).set('Authorization', `Bearer ${project.web.test.secret}`).send({ release, environment: 'sandbox', files });
  expect(res.body).toMatchObject({ uploaded: 1, errors: [] });
}

const detail = async () => {
  const list = await report(service, project.ios.test.secret, '/v1/reports/errors');
  expect(list.data).toHaveLength(1);
  return report(service, project.ios.test.secret, `/v1/reports/errors/${list.data[0].fingerprint}`);
};

it('keeps every frame as received while the release has no maps, then resolves them once maps are uploaded', async () => {
  await reportError('crash-1', 'app-2.0.0');
  const before = await detail();
  expect(before.object).toBe('error_group');
  expect(before.data.latestSample).toMatchObject({ eventId: 'crash-1', release: 'app-2.0.0', rawStack: stack, message: 'unknown plan enterprise' });
  expect(before.data.latestSample.frames.length).toBeGreaterThan(3);
  for (const frame of before.data.latestSample.frames) expect(frame.original).toBeNull();
  expect(before.data.latestSample.frames[0]).toMatchObject({ reason: 'no_sourcemap', fileUrl: bundle });

  await uploadMaps('app-2.0.0');
  const after = await detail();
  const frames = after.data.latestSample.frames;
  expect(frames.slice(0, 3).map((f: any) => [f.original.source, f.original.line])).toEqual([
    ['../src/pricing.ts', lineOf('src/pricing.ts', 'THROW_SITE')],
    ['../src/main.ts', lineOf('src/main.ts', 'CALL_PRICE')],
    ['../src/main.ts', lineOf('src/main.ts', 'CALL_QUOTE')],
  ]);
  expect(frames[1].original.name).toBe('unitPrice');
  // Node's own frames are covered by no uploaded map: kept exactly as received.
  const internal = frames.filter((f: any) => f.raw.includes('node:internal'));
  expect(internal.length).toBeGreaterThan(0);
  for (const frame of internal) expect(frame).toMatchObject({ original: null, reason: 'no_sourcemap' });
  expect(frames.map((f: any) => f.raw)).toEqual(stack.split('\n').slice(1).map((line) => line.trim()));
  expect(after.data).toMatchObject({ count: 1, customers: 1, lastRelease: 'app-2.0.0' });
});

it('resolves the latest sample through its own release: a release without maps stays as received', async () => {
  // The group's last seen and sample move once per minute (the group document is never hot).
  service.clock.advance(60_000);
  await reportError('crash-2', 'app-2.0.1');
  const latest = await detail();
  expect(latest.data).toMatchObject({ count: 2, customers: 1, lastRelease: 'app-2.0.1' });
  expect(latest.data.latestSample.eventId).toBe('crash-2');
  for (const frame of latest.data.latestSample.frames) expect(frame.original).toBeNull();
});
