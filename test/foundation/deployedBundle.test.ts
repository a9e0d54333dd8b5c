/**
 * Guarantee (issue 12, §4): benchmark code and test fixtures live outside `functions/src`, so
 * nothing of them is in the deployed bundle, and test files never import from the bench.
 * Fixtures shared by tests and the bench live in `fixtures/`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const REPO = resolve(__dirname, '..', '..');
const SRC = join(REPO, 'functions', 'src');
const BENCH = join(REPO, 'bench');
const FIXTURES = join(REPO, 'fixtures');
/** Packages only the bench, the tests and the dashboard page (dashboard-ui/) use: the service must never need them. */
const DEV_ONLY_PACKAGES = ['autocannon', 'jsrsasign', 'supertest', 'firebase-functions-test', 'esbuild', 'ts-jest', '@jest/globals', 'preact', 'htm', 'uplot', 'playwright-core'];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'lib' ? [] : filesUnder(path);
    return /\.(ts|js)$/.test(entry.name) ? [path] : [];
  });
}

/** Every module specifier a file names: import/export … from, import(), require(). */
function specifiersOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const pattern of [/\bfrom\s+['"]([^'"]+)['"]/g, /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g, /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g, /^\s*import\s+['"]([^'"]+)['"]/gm]) {
    for (const match of text.matchAll(pattern)) found.push(match[1]);
  }
  return found;
}

function isUnder(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir + sep);
}

describe('what is deployed', () => {
  const sources = filesUnder(SRC);

  it('functions/src has no bench or fixtures folder', () => {
    const offending = sources.map((file) => relative(SRC, file)).filter((path) => path.split(sep).some((part) => /^(bench|benchmarks?|fixtures?)$/i.test(part)));
    expect(offending).toEqual([]);
  });

  it('no service module imports the bench, the fixtures, the tests or a dev-only package', () => {
    const offending: string[] = [];
    for (const file of sources) {
      for (const specifier of specifiersOf(file)) {
        const target = specifier.startsWith('.') ? resolve(dirname(file), specifier) : null;
        const reachesOut = target !== null && (isUnder(target, BENCH) || isUnder(target, FIXTURES) || isUnder(target, join(REPO, 'test')) || !isUnder(target, SRC));
        const devOnly = DEV_ONLY_PACKAGES.some((name) => specifier === name || specifier.startsWith(`${name}/`));
        if (reachesOut || devOnly || specifier.startsWith('#')) offending.push(`${relative(REPO, file)} -> ${specifier}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it('the fixtures stand alone: they import neither the bench nor the service', () => {
    const offending = filesUnder(FIXTURES).flatMap((file) =>
      specifiersOf(file)
        .filter((specifier) => specifier.startsWith('.') || specifier.startsWith('#'))
        .filter((specifier) => specifier.startsWith('#') || !isUnder(resolve(dirname(file), specifier), FIXTURES))
        .map((specifier) => `${relative(REPO, file)} -> ${specifier}`),
    );
    expect(offending).toEqual([]);
  });
});

describe('tests and the bench', () => {
  it('no test file imports from bench/', () => {
    const offending = filesUnder(join(REPO, 'test')).flatMap((file) =>
      specifiersOf(file)
        .filter((specifier) => specifier.startsWith('.') && isUnder(resolve(dirname(file), specifier), BENCH))
        .map((specifier) => `${relative(REPO, file)} -> ${specifier}`),
    );
    expect(offending).toEqual([]);
  });

  it('the import check sees the shapes it guards against (so it cannot pass vacuously)', () => {
    const benchImports = filesUnder(BENCH).flatMap(specifiersOf);
    expect(benchImports).toEqual(expect.arrayContaining(['#functions/store/scope', '../../fixtures/appleChain', 'autocannon']));
    const testImports = filesUnder(join(REPO, 'test')).flatMap(specifiersOf);
    expect(testImports).toEqual(expect.arrayContaining(['../../fixtures/sourcemapCorpus']));
  });
});
