/**
 * `tessera sourcemaps upload --release R --url-prefix URL DIR` through the compiled bin (issue
 * 22 §3): every *.map under DIR stored for its script's runtime URL through the upload service's
 * checks; a refused file named with its reason; a re-run skips what is stored unchanged.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createDeps } from '../../functions/src/app/deps';
import { createProject } from '../../functions/src/projects/repository';
import { listManifests } from '../../functions/src/sourcemaps/repository';
import { EnvScope } from '../../functions/src/store/scope';
import { smallMap } from './fixtures';

const run = promisify(execFile);
const BIN = join(__dirname, '..', '..', 'functions', 'bin', 'tessera.js');

it('uploads every map under DIR for its runtime URL, names refused files, and skips unchanged ones on a re-run', async () => {
  const db = createDeps().db;
  const { projectId } = await createProject(db, 'sourcemaps CLI', Date.now());
  const dir = mkdtempSync(join(tmpdir(), 'tessera-maps-'));
  mkdirSync(join(dir, 'static', 'js'), { recursive: true });
  writeFileSync(join(dir, 'static', 'js', 'main.4f2a.js.map'), JSON.stringify(smallMap('main')));
  writeFileSync(join(dir, 'vendor.js.map'), JSON.stringify(smallMap('vendor')));
  writeFileSync(join(dir, 'broken.js.map'), '{ not a map');
  writeFileSync(join(dir, 'main.4f2a.js'), 'console.log(1)'); // not a map: ignored
  const args = ['sourcemaps', 'upload', '--project', projectId, '--env', 'live', '--release', 'web-1.2.0', '--url-prefix', 'https://app.example.com', dir];

  const first = await run(process.execPath, [BIN, ...args], { env: process.env });
  expect(first.stderr).toBe('');
  expect(first.stdout).toMatch(/^Release web-1\.2\.0 \(live\): 3 source maps, 2 uploaded, 0 unchanged, 1 refused\n\nfile +reason +message\n-+ +-+ +-+\nbroken\.js\.map +invalid_sourcemap /);
  const stored = await listManifests(new EnvScope(db, projectId, 'live'), 'web-1.2.0');
  expect(stored.map((m) => m.fileUrl)).toEqual(['https://app.example.com/static/js/main.4f2a.js', 'https://app.example.com/vendor.js']);

  const again = JSON.parse((await run(process.execPath, [BIN, ...args, '--format', 'json'], { env: process.env })).stdout);
  expect(again).toMatchObject({ files: 3, uploaded: 0, skipped: 2, errors: [{ file: 'broken.js.map', code: 'invalid_sourcemap' }] });
}, 60_000);
