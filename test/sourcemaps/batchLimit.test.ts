/**
 * Guarantee: the upload route's body limit holds a full batch of 100 realistic source maps
 * (the benchmark's corpus: minified-chunk maps of about 200 KB with sources content), and such
 * a batch is stored and resolvable in one request.
 */
import { realisticSourceMap, sourcemapBatchBody } from '../../fixtures/sourcemapCorpus';
import { checkUploadFile } from '../support/sourcemapUpload';
import { fileUrlHash } from '../../functions/src/sourcemaps/hashing';
import { MAX_UPLOAD_BODY_BYTES } from '../../functions/src/sourcemaps/limits';
import { MAX_FILES_PER_BATCH } from '../../functions/src/wire/sourcemaps';
import { loadSourceMaps } from '../../functions/src/sourcemaps/repository';
import { resolveStackFrames } from '../../functions/src/sourcemaps/resolve';
import { EnvScope } from '../../functions/src/store/scope';
import { createTestService, seedProject } from '../support/harness';
import { UPLOAD_PATH } from './fixtures';

describe('a batch of 100 realistic maps', () => {
  const body = sourcemapBatchBody('full-batch', 'production', MAX_FILES_PER_BATCH);
  const text = JSON.stringify(body);

  it('consists of valid maps of realistic size and fits the route body limit', () => {
    const sizes = body.files.map((f) => Buffer.from(f.sourceMap, 'base64').length);
    expect(Math.min(...sizes)).toBeGreaterThan(150_000);
    for (const f of body.files.slice(0, 5)) expect(checkUploadFile(f).ok).toBe(true);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_UPLOAD_BODY_BYTES);
  });

  it('uploads in one request, and every map reads back and resolves', async () => {
    const service = createTestService();
    const project = await seedProject(service);
    const res = await service.request().post(UPLOAD_PATH).set('Authorization', `Bearer ${project.web.live.secret}`).set('Content-Type', 'application/json').send(text);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ uploaded: 100, skipped: 0, errors: [] });

    const scope = new EnvScope(service.deps.db, project.projectId, 'live');
    const hashes = body.files.map((f) => fileUrlHash(f.fileUrl));
    const loaded = await loadSourceMaps(scope, 'full-batch', hashes);
    expect(loaded.size).toBe(100);
    expect(loaded.get(hashes[42])!.bytes.equals(realisticSourceMap(43))).toBe(true);
    const [frame] = await resolveStackFrames(scope, 'full-batch', [{ raw: 'at x', function: null, fileUrl: body.files[7].fileUrl, line: 1, column: 1 }]);
    expect(frame.original).toMatchObject({ line: 1, column: 1, name: 'export' });
    expect(frame.original!.source).toMatch(/^webpack:\/\/shop\/src\/[a-z]+\/\w+\.tsx$/);
  });
});
