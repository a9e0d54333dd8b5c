/**
 * The deployed bundle installs reproducibly and ships nothing unused: Cloud Build runs `npm ci`
 * in functions/ from functions/package-lock.json, which must lock exactly functions/package.json's
 * dependencies (`npm run lock:functions` rewrites it); and every dependency is imported by the
 * service, but for the one kept for a stated reason.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const FUNCTIONS = join(__dirname, '..', '..', 'functions');
const manifest = JSON.parse(readFileSync(join(FUNCTIONS, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

/** Dependencies no source file imports, and why they stay. */
const KEPT_WITHOUT_IMPORT: Record<string, string> = {
  '@google-cloud/firestore': 'firebase-admin/firestore loads it; a direct dependency so npm under Node 20 never skips it (../shared/design/decisions.md)',
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

it('locks exactly the dependencies functions/package.json declares', () => {
  const lock = JSON.parse(readFileSync(join(FUNCTIONS, 'package-lock.json'), 'utf8')) as { lockfileVersion: number; packages: Record<string, { version?: string; dependencies?: Record<string, string> }> };
  expect(lock.lockfileVersion).toBe(3);
  expect(lock.packages[''].dependencies).toEqual(manifest.dependencies);
  for (const name of Object.keys(manifest.dependencies)) expect(lock.packages[`node_modules/${name}`]?.version).toEqual(expect.any(String));
});

it('ships no dependency the service does not import', () => {
  const code = sources(join(FUNCTIONS, 'src')).map((file) => readFileSync(file, 'utf8')).join('\n');
  const unused = Object.keys(manifest.dependencies).filter((name) => !KEPT_WITHOUT_IMPORT[name] && !new RegExp(`(from |import\\(|require\\()'${name.replace('/', '\\/')}(/[^']*)?'`).test(code));
  expect(unused).toEqual([]);
});
