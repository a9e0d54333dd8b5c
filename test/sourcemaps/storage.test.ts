/**
 * Guarantees: a map larger than one Firestore document is stored in chunks that each fit the
 * 1 MiB limit and reads back byte for byte; replacing a map leaves no chunk of the old one;
 * maps live under the key's project and environment and nowhere else; an identical
 * re-upload costs a single store round trip; a corrupted stored map is never served.
 */
import { CHUNK_BYTES } from '../../functions/src/sourcemaps/limits';
import { manifestRef } from '../../functions/src/sourcemaps/paths';
import { loadSourceMaps, readManifests } from '../../functions/src/sourcemaps/repository';
import { fileUrlHash } from '../../functions/src/sourcemaps/hashing';
import { resolveStackFrames } from '../../functions/src/sourcemaps/resolve';
import { EnvScope } from '../../functions/src/store/scope';
import { createTestService, seedProject, type SeededProject, type TestService } from '../support/harness';
import { file, incompressibleMap, smallMap, UPLOAD_PATH, uploadBody } from './fixtures';

let service: TestService;
let project: SeededProject;
let other: SeededProject;

beforeAll(async () => {
  service = createTestService({ settings: { exposeRoundTrips: true } });
  project = await seedProject(service);
  other = await seedProject(service);
});

const upload = (release: string, files: unknown[], key = project.ios.test.secret) =>
  service.request().post(UPLOAD_PATH).set('Authorization', `Bearer ${key}`).send(uploadBody(release, key.includes('_live_') ? 'production' : 'sandbox', files));
const scopeOf = (p: SeededProject, env: 'test' | 'live') => new EnvScope(service.deps.db, p.projectId, env);

async function chunkDocs(scope: EnvScope, release: string, url: string) {
  const snapshot = await manifestRef(scope, release, fileUrlHash(url)).collection('chunks').get();
  return snapshot.docs;
}

describe('chunked storage', () => {
  const url = 'https://app.example.com/static/vendor.js';
  const map = incompressibleMap(2_600_000);
  const bytes = Buffer.from(JSON.stringify(map), 'utf8');

  it('stores a map larger than one document in chunks below the document limit and reads it back intact', async () => {
    expect(bytes.length).toBeGreaterThan(2 * 1024 * 1024);
    const res = await upload('big', [file(url, map)]);
    expect(res.body).toMatchObject({ uploaded: 1, errors: [] });

    const scope = scopeOf(project, 'test');
    const manifest = (await readManifests(scope, 'big', [fileUrlHash(url)])).get(fileUrlHash(url));
    expect(manifest).toMatchObject({ release: 'big', fileUrl: url, byteLength: bytes.length, encoding: 'gzip' });
    expect(manifest!.chunkCount).toBeGreaterThanOrEqual(3);
    const chunks = await chunkDocs(scope, 'big', url);
    expect(chunks).toHaveLength(manifest!.chunkCount);
    for (const chunk of chunks) expect((chunk.get('data') as Buffer).length).toBeLessThanOrEqual(CHUNK_BYTES);

    const loaded = await loadSourceMaps(scope, 'big', [fileUrlHash(url)]);
    expect(loaded.get(fileUrlHash(url))!.bytes.equals(bytes)).toBe(true);

    const [frame] = await resolveStackFrames(scope, 'big', [{ raw: 'at x', function: null, fileUrl: url, line: 1, column: 1 }]);
    expect(frame.original).toEqual({ source: 'src/vendor.ts', line: 1, column: 1, name: 'main' });
  });

  it('replacing a map removes every chunk of the previous one', async () => {
    const res = await upload('big', [file(url, smallMap('replacement'))]);
    expect(res.body).toMatchObject({ uploaded: 1, skipped: 0 });
    const scope = scopeOf(project, 'test');
    const manifest = (await readManifests(scope, 'big', [fileUrlHash(url)])).get(fileUrlHash(url))!;
    const chunks = await chunkDocs(scope, 'big', url);
    expect(chunks.map((doc) => doc.id)).toEqual([`${manifest.generation}_0000`]);
    const loaded = await loadSourceMaps(scope, 'big', [fileUrlHash(url)]);
    expect(JSON.parse(loaded.get(fileUrlHash(url))!.bytes.toString('utf8'))).toEqual(smallMap('replacement'));
  });
});

describe('partitioning', () => {
  const url = 'https://app.example.com/static/main.js';

  it('stores under projects/{projectId}/envs/{env}/ of the key, invisible to the other environment and other projects', async () => {
    await upload('7.0.0', [file(url)], project.android.live.secret);
    const hash = fileUrlHash(url);
    const live = scopeOf(project, 'live');
    expect(manifestRef(live, '7.0.0', hash).path.startsWith(`projects/${project.projectId}/envs/live/`)).toBe(true);
    expect((await readManifests(live, '7.0.0', [hash])).size).toBe(1);
    expect((await readManifests(scopeOf(project, 'test'), '7.0.0', [hash])).size).toBe(0);
    expect((await readManifests(scopeOf(other, 'live'), '7.0.0', [hash])).size).toBe(0);

    const frame = { raw: 'at x', function: null, fileUrl: url, line: 1, column: 1 };
    expect((await resolveStackFrames(live, '7.0.0', [frame]))[0].reason).toBeNull();
    expect((await resolveStackFrames(scopeOf(project, 'test'), '7.0.0', [frame]))[0].reason).toBe('no_sourcemap');
    expect((await resolveStackFrames(scopeOf(other, 'live'), '7.0.0', [frame]))[0].reason).toBe('no_sourcemap');
  });

  it('an upload with another project’s key leaves this project’s maps untouched', async () => {
    const res = await upload('7.0.0', [file(url, smallMap('other'))], other.android.live.secret);
    expect(res.body).toMatchObject({ uploaded: 1, skipped: 0 });
    const loaded = await loadSourceMaps(scopeOf(project, 'live'), '7.0.0', [fileUrlHash(url)]);
    expect(JSON.parse(loaded.get(fileUrlHash(url))!.bytes.toString('utf8'))).toEqual(smallMap());
  });
});

describe('cost and integrity', () => {
  it('an identical re-upload of many files costs one store round trip and writes nothing', async () => {
    const files = Array.from({ length: 20 }, (_, i) => file(`https://app.example.com/c${i}.js`, smallMap(`c${i}`)));
    const first = await upload('cheap', files);
    expect(first.body.uploaded).toBe(20);
    const again = await upload('cheap', files);
    expect(again.body).toMatchObject({ uploaded: 0, skipped: 20 });
    expect(again.headers['x-tessera-round-trips']).toBe('1');
  });

  it('never serves a stored map whose chunks no longer match its content hash', async () => {
    const url = 'https://app.example.com/static/tampered.js';
    await upload('tamper', [file(url, smallMap('tampered'))]);
    const scope = scopeOf(project, 'test');
    const [chunk] = await chunkDocs(scope, 'tamper', url);
    await chunk.ref.update({ data: Buffer.from('not gzip at all') });
    expect((await loadSourceMaps(scope, 'tamper', [fileUrlHash(url)])).size).toBe(0);
    const [frame] = await resolveStackFrames(scope, 'tamper', [{ raw: 'at x', function: null, fileUrl: url, line: 1, column: 1 }]);
    expect(frame).toMatchObject({ original: null, reason: 'no_sourcemap' });
  });
});
