/**
 * Guarantee: a real minified bundle's thrown stack resolves to the original files and lines.
 * The test writes a small multi-file TypeScript program, bundles it with esbuild (minified,
 * code-split, with source maps), runs it with node to capture the stack it really throws,
 * uploads the maps through the API and resolves the stack with the library function and with
 * the `tessera symbolicate` command.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { symbolicateCommands } from '../../functions/src/cli/commands/symbolicate';
import { symbolicate, type SymbolicatedTrace } from '../../functions/src/sourcemaps/resolve';
import { EnvScope } from '../../functions/src/store/scope';
import { createTestService, seedProject, type SeededProject, type TestService } from '../support/harness';
import { UPLOAD_PATH } from './fixtures';

const SOURCES: Record<string, string> = {
  'src/util/format.ts': [
    'export function formatPrice(cents: number, currency: string): string {',
    '  const units = cents / 100;',
    "  if (currency.length !== 3 || currency === 'XXX') {",
    '    throw new RangeError(`unsupported currency ${currency}`); // THROW_SITE',
    '  }',
    '  return `${units.toFixed(2)} ${currency}`;',
    '}',
  ].join('\n'),
  'src/checkout/cart.ts': [
    "import { formatPrice } from '../util/format';",
    '',
    'export interface CartLine { sku: string; quantity: number; unitCents: number }',
    '',
    'export function checkoutTotal(lines: CartLine[], currency: string): string {',
    '  const cents = lines.reduce((sum, line) => sum + line.quantity * line.unitCents, 0);',
    '  const label = formatPrice(cents, currency); // CALL_FORMAT',
    '  return `Total: ${label}`;',
    '}',
  ].join('\n'),
  'src/main.ts': [
    "import { checkoutTotal } from './checkout/cart';",
    '',
    'function run(): void {',
    "  const lines = [{ sku: 'tea', quantity: 2, unitCents: 450 }];",
    "  console.log(checkoutTotal(lines, 'XXX')); // CALL_CHECKOUT",
    '}',
    '',
    'try {',
    '  run(); // CALL_RUN',
    '} catch (err) {',
    '  process.stdout.write(JSON.stringify({ stack: (err as Error).stack }));',
    '}',
  ].join('\n'),
  // A second entry point sharing format.ts, so that esbuild emits a shared chunk with its own map.
  'src/admin.ts': ["import { formatPrice } from './util/format';", "console.log(formatPrice(100, 'EUR'));"].join('\n'),
};

const lineOf = (path: string, marker: string) => SOURCES[path].split('\n').findIndex((line) => line.includes(marker)) + 1;

let service: TestService;
let project: SeededProject;
let workDir: string;

beforeAll(async () => {
  service = createTestService();
  project = await seedProject(service);
  workDir = mkdtempSync(join(tmpdir(), 'tessera-esbuild-'));
  for (const [path, text] of Object.entries(SOURCES)) {
    mkdirSync(dirname(join(workDir, path)), { recursive: true });
    writeFileSync(join(workDir, path), text);
  }
});

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

/** Uploads every `.map` next to its bundle, under the bundle's file:// URL. */
async function uploadMaps(outDir: string, release: string): Promise<string[]> {
  const maps = readdirSync(outDir).filter((name) => name.endsWith('.map'));
  const files = maps.map((name) => ({
    fileUrl: pathToFileURL(join(outDir, name.slice(0, -'.map'.length))).href,
    sourceMap: readFileSync(join(outDir, name)).toString('base64'),
  }));
  const res = await service
    .request()
    .post(UPLOAD_PATH)
    .set('Authorization', `Bearer ${project.web.test.secret}`)
    .send({ release, environment: 'sandbox', files });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ uploaded: files.length, skipped: 0, errors: [] });
  return files.map((f) => f.fileUrl);
}

function runAndCaptureStack(entry: string): string {
  const output = execFileSync(process.execPath, [entry], { encoding: 'utf8' });
  return (JSON.parse(output) as { stack: string }).stack;
}

function expectOriginalFrames(result: SymbolicatedTrace): void {
  expect(result.message).toBe('RangeError: unsupported currency XXX');
  const originals = result.frames.filter((frame) => frame.original).map((frame) => [frame.original!.source, frame.original!.line]);
  expect(originals.slice(0, 4)).toEqual([
    ['../src/util/format.ts', lineOf('src/util/format.ts', 'THROW_SITE')],
    ['../src/checkout/cart.ts', lineOf('src/checkout/cart.ts', 'CALL_FORMAT')],
    ['../src/main.ts', lineOf('src/main.ts', 'CALL_CHECKOUT')],
    ['../src/main.ts', lineOf('src/main.ts', 'CALL_RUN')],
  ]);
  // The first four frames are the program's own; none of them is left unresolved.
  expect(result.frames.slice(0, 4).every((frame) => frame.reason === null)).toBe(true);
}

describe('resolution against a real esbuild bundle', () => {
  it('resolves an ES-module, code-split bundle across its chunks', async () => {
    const outDir = join(workDir, 'dist-esm');
    await build({
      entryPoints: [join(workDir, 'src/main.ts'), join(workDir, 'src/admin.ts')],
      outdir: outDir,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      minify: true,
      sourcemap: true,
      outExtension: { '.js': '.mjs' },
      logLevel: 'silent',
    });
    const bundles = readdirSync(outDir).filter((name) => name.endsWith('.mjs'));
    expect(bundles.length).toBeGreaterThanOrEqual(3);
    const fileUrls = await uploadMaps(outDir, 'esm-1.0.0');

    const stack = runAndCaptureStack(join(outDir, 'main.mjs'));
    const frameFiles = new Set(stack.split('\n').slice(1, 5).map((line) => /\((file:\/\/[^)]+?):\d+:\d+\)|at (file:\/\/\S+?):\d+:\d+/.exec(line)?.slice(1).find(Boolean)));
    // The thrown stack really crosses two minified files (the shared chunk and main.mjs).
    expect(frameFiles.size).toBe(2);
    for (const url of frameFiles) expect(fileUrls).toContain(url);

    const scope = new EnvScope(service.deps.db, project.projectId, 'test');
    const result = await symbolicate(scope, 'esm-1.0.0', stack);
    expectOriginalFrames(result);
    expect(result.frames[1].original!.name).toBe('formatPrice');

    const printed = await symbolicateCommands[0].run(
      { project: project.projectId, env: 'test', release: 'esm-1.0.0' },
      { db: service.deps.db, clock: service.clock, stdin: async () => stack },
    );
    expect(printed).toEqual({ projectId: project.projectId, env: 'test', ...result });
  });

  it('resolves a CommonJS bundle whose stack prints filesystem paths', async () => {
    const outDir = join(workDir, 'dist-cjs');
    await build({
      entryPoints: [join(workDir, 'src/main.ts')],
      outfile: join(outDir, 'app.js'),
      bundle: true,
      format: 'cjs',
      platform: 'node',
      minify: true,
      sourcemap: true,
      logLevel: 'silent',
    });
    await uploadMaps(outDir, 'cjs-1.0.0');
    const stack = runAndCaptureStack(join(outDir, 'app.js'));
    expect(stack).toContain(`${join(outDir, 'app.js')}:1:`);

    const result = await symbolicate(new EnvScope(service.deps.db, project.projectId, 'test'), 'cjs-1.0.0', stack);
    expectOriginalFrames(result);
    // The same stack against a release without maps stays as it was.
    const unknown = await symbolicate(new EnvScope(service.deps.db, project.projectId, 'test'), 'cjs-0.9.0', stack);
    expect(unknown.frames[0]).toMatchObject({ original: null, reason: 'no_sourcemap' });
  });
});

describe('tessera symbolicate', () => {
  const run = (values: Record<string, string>, stdin = 'Error: x\n    at f (https://a.example/x.js:1:1)') =>
    symbolicateCommands[0].run(values, { db: service.deps.db, clock: service.clock, stdin: async () => stdin });

  it('refuses a missing option, a bad environment or release, an unknown project and an empty stdin', async () => {
    await expect(run({ env: 'test', release: '1' })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(run({ project: project.projectId, env: 'sandbox', release: '1' })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(run({ project: project.projectId, env: 'test', release: 'a/b' })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(run({ project: 'proj_doesnotexist', env: 'test', release: '1' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(run({ project: project.projectId, env: 'test', release: '1' }, '  \n')).rejects.toMatchObject({ code: 'invalid_argument' });
  });
});
