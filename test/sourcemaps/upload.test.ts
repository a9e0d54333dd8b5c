/**
 * Guarantees: POST /v1/releases/sourcemaps takes secret keys only; the request-level rules
 * (release, environment, files) answer with exactly the spec's codes; every per-file failure
 * is a row in `errors` and in `results` and never fails the batch; an identical re-upload is
 * `skipped`; `fileUrlHash` is always the server's own; the response has the specified shape.
 */
import { createHash } from 'node:crypto';
import { MAX_SOURCEMAP_BYTES, MAX_UPLOAD_BODY_BYTES } from '../../functions/src/sourcemaps/limits';
import { createTestService, expectError, lockHeaders, seedProject, type SeededProject, type TestService } from '../support/harness';
import { describeSecuredRoute } from '../support/securitySuite';
import { base64Json, file, smallMap, UPLOAD_PATH, uploadBody } from './fixtures';

describeSecuredRoute({ method: 'POST', path: UPLOAD_PATH, key: 'secret', body: uploadBody('1.0.0', 'production', [file('https://app.example.com/app.js')]) });

let service: TestService;
let project: SeededProject;
let testKey: string;
let liveKey: string;

beforeAll(async () => {
  service = createTestService();
  project = await seedProject(service);
  testKey = project.web.test.secret;
  liveKey = project.web.live.secret;
});

const post = (key: string, body: unknown) => service.request().post(UPLOAD_PATH).set('Authorization', `Bearer ${key}`).send(body as object);
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const valid = [file('https://app.example.com/static/app.js')];

describe('request-level rules', () => {
  it('rejects a publishable key outright, even with a satisfied platform lock: 401 invalid_api_key', async () => {
    const res = await service.request().post(UPLOAD_PATH).set('Authorization', `Bearer ${project.web.test.publishable}`).set(lockHeaders('web')).send(uploadBody('1.0.0', 'sandbox', valid));
    expectError(res, 401, 'authentication_error', 'invalid_api_key');
  });

  it('rejects a release that is missing, empty, too long or has other characters: 400 invalid_release', async () => {
    for (const release of [undefined, '', 'x'.repeat(65), 'v1 2', 'v1/2', 'rélease', 'v1+2', 42, null]) {
      expectError(await post(testKey, { release, environment: 'sandbox', files: valid }), 400, 'invalid_request_error', 'invalid_release');
    }
  });

  it('accepts release names of letters, digits, dots, underscores and dashes up to 64 characters', async () => {
    for (const release of ['x'.repeat(64), '1.2.3-rc_1', '.', '..', '__x__', 'a']) {
      const res = await post(testKey, uploadBody(release, 'sandbox', valid));
      expect(res.status).toBe(200);
      expect(res.body.release).toBe(release);
    }
  });

  it('rejects an environment that is neither production nor sandbox: 400 invalid_param_value', async () => {
    for (const environment of [undefined, 'staging', 'live', 'test', 'Production', '', 7, null]) {
      expectError(await post(testKey, { release: '1.0.0', environment, files: valid }), 400, 'invalid_request_error', 'invalid_param_value');
    }
  });

  it('rejects an environment other than the key’s: 403 env_mismatch', async () => {
    expectError(await post(testKey, uploadBody('1.0.0', 'production', valid)), 403, 'permission_error', 'env_mismatch');
    expectError(await post(liveKey, uploadBody('1.0.0', 'sandbox', valid)), 403, 'permission_error', 'env_mismatch');
  });

  it('rejects missing or empty files: 400 missing_required_param', async () => {
    for (const files of [undefined, null, []]) {
      expectError(await post(testKey, { release: '1.0.0', environment: 'sandbox', files }), 400, 'invalid_request_error', 'missing_required_param');
    }
  });

  it('rejects more than 100 files and files that are not an array: 400 invalid_param_value', async () => {
    const many = Array.from({ length: 101 }, (_, i) => file(`https://app.example.com/${i}.js`));
    expectError(await post(testKey, uploadBody('1.0.0', 'sandbox', many)), 400, 'invalid_request_error', 'invalid_param_value');
    expectError(await post(testKey, uploadBody('1.0.0', 'sandbox', { a: 1 } as unknown as unknown[])), 400, 'invalid_request_error', 'invalid_param_value');
    expectError(await post(testKey, uploadBody('1.0.0', 'sandbox', 'files' as unknown as unknown[])), 400, 'invalid_request_error', 'invalid_param_value');
  });

  it('accepts exactly 100 files', async () => {
    const hundred = Array.from({ length: 100 }, (_, i) => file(`https://app.example.com/chunk-${i}.js`, smallMap(`chunk${i}`)));
    const res = await post(testKey, uploadBody('hundred', 'sandbox', hundred));
    expect(res.status).toBe(200);
    expect(res.body.uploaded).toBe(100);
    expect(res.body.results).toHaveLength(100);
  });

  it('rejects a body that is not a JSON object: 400 invalid_param_value', async () => {
    expectError(await post(testKey, [uploadBody('1.0.0', 'sandbox', valid)]), 400, 'invalid_request_error', 'invalid_param_value');
  });

  it('rejects a body above the route limit with 400 invalid_param_value, before reading any file', async () => {
    const oversized = uploadBody('1.0.0', 'sandbox', [{ fileUrl: 'https://app.example.com/a.js', sourceMap: 'A'.repeat(MAX_UPLOAD_BODY_BYTES) }]);
    expectError(await post(testKey, oversized), 400, 'invalid_request_error', 'invalid_param_value');
  });
});

describe('per-file outcomes', () => {
  it('uploads valid files with the specified response shape and a server-computed fileUrlHash', async () => {
    const files = [
      { ...file('https://app.example.com/static/main.js', smallMap('main')), fileUrlHash: 'client-value-is-ignored' },
      file('https://app.example.com/static/vendor.js', smallMap('vendor')),
    ];
    const res = await post(liveKey, uploadBody('2.0.0', 'production', files));
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    expect(res.body).toEqual({
      object: 'sourcemap_batch',
      release: '2.0.0',
      environment: 'production',
      uploaded: 2,
      skipped: 0,
      errors: [],
      results: [
        { fileUrl: 'https://app.example.com/static/main.js', fileUrlHash: sha256('https://app.example.com/static/main.js'), status: 'uploaded' },
        { fileUrl: 'https://app.example.com/static/vendor.js', fileUrlHash: sha256('https://app.example.com/static/vendor.js'), status: 'uploaded' },
      ],
    });
  });

  it('accepts app, bundler, file and custom scheme URLs', async () => {
    const urls = ['app:///index.android.bundle', 'app:///main.jsbundle', 'webpack://shop/./src/index.ts', 'capacitor://localhost/main.js', 'file:///srv/app/main.js', 'http://localhost:3000/main.js?v=3'];
    const res = await post(testKey, uploadBody('schemes', 'sandbox', urls.map((url) => file(url))));
    expect(res.body.errors).toEqual([]);
    expect(res.body.uploaded).toBe(urls.length);
  });

  it('reports invalid runtime URLs per file and still stores the valid sibling: invalid_runtime_url', async () => {
    const bad = ['main.js', '/static/main.js', '//cdn.example.com/main.js', 'https:/x.js', 'https://', 'https://a b.js', '', 'x'.repeat(3000), 42];
    const files = [...bad.map((fileUrl) => ({ fileUrl, sourceMap: base64Json(smallMap()) })), { sourceMap: base64Json(smallMap()) }, file('https://app.example.com/ok.js')];
    const res = await post(testKey, uploadBody('urls', 'sandbox', files));
    expect(res.status).toBe(200);
    expect(res.body.uploaded).toBe(1);
    expect(res.body.errors).toHaveLength(bad.length + 1);
    for (const row of res.body.errors) expect(row.error.code).toBe('invalid_runtime_url');
    expect(res.body.errors[0]).toEqual({ fileUrl: 'main.js', status: 'error', error: { code: 'invalid_runtime_url', message: expect.any(String) } });
    expect(res.body.errors[bad.length - 1].fileUrl).toBeNull();
    expect(res.body.results[bad.length + 1]).toMatchObject({ fileUrl: 'https://app.example.com/ok.js', status: 'uploaded' });
    expect(res.body.results[0]).toEqual({ fileUrl: 'main.js', fileUrlHash: null, status: 'error', error: { code: 'invalid_runtime_url', message: expect.any(String) } });
  });

  it('reports a missing source map: missing_sourcemap', async () => {
    const files = [{ fileUrl: 'https://app.example.com/a.js' }, { fileUrl: 'https://app.example.com/b.js', sourceMap: null }, { fileUrl: 'https://app.example.com/c.js', sourceMap: '' }];
    const res = await post(testKey, uploadBody('missing', 'sandbox', files));
    expect(res.status).toBe(200);
    expect(res.body.errors.map((row: { error: { code: string } }) => row.error.code)).toEqual(['missing_sourcemap', 'missing_sourcemap', 'missing_sourcemap']);
    expect(res.body.uploaded).toBe(0);
  });

  it('reports maps that are not base64, not JSON or not version 3: invalid_sourcemap', async () => {
    const maps: unknown[] = [
      '@@@not base64@@@',
      'QUJD=A==',
      Buffer.from('hello, world').toString('base64'),
      base64Json([1, 2, 3]),
      base64Json({ ...smallMap(), version: 2 }),
      base64Json({ version: 3, sources: ['a.ts'] }),
      base64Json({ version: 3, mappings: 'AAAA' }),
      base64Json({ version: 3, sections: [{ offset: { line: 0, column: 0 }, url: 'https://elsewhere/map.json' }] }),
      123,
    ];
    const files = maps.map((sourceMap, i) => ({ fileUrl: `https://app.example.com/${i}.js`, sourceMap }));
    const res = await post(testKey, uploadBody('invalid', 'sandbox', [...files, file('https://app.example.com/good.js')]));
    expect(res.status).toBe(200);
    expect(res.body.errors).toHaveLength(maps.length);
    for (const row of res.body.errors) expect(row).toEqual({ fileUrl: expect.any(String), status: 'error', error: { code: 'invalid_sourcemap', message: expect.any(String) } });
    expect(res.body.uploaded).toBe(1);
  });

  it(`reports a map above ${MAX_SOURCEMAP_BYTES} decoded bytes: sourcemap_too_large`, async () => {
    const tooLarge = Buffer.alloc(MAX_SOURCEMAP_BYTES + 1, 0x20).toString('base64');
    const res = await post(testKey, uploadBody('large', 'sandbox', [{ fileUrl: 'https://app.example.com/huge.js', sourceMap: tooLarge }, file('https://app.example.com/small.js')]));
    expect(res.status).toBe(200);
    expect(res.body.errors).toEqual([{ fileUrl: 'https://app.example.com/huge.js', status: 'error', error: { code: 'sourcemap_too_large', message: expect.any(String) } }]);
    expect(res.body.uploaded).toBe(1);
  });

  it('accepts a map exactly at the size limit', async () => {
    const map = smallMap('edge') as Record<string, unknown>;
    const base = Buffer.byteLength(JSON.stringify({ ...map, x: '' }));
    const atLimit = Buffer.from(JSON.stringify({ ...map, x: ' '.repeat(MAX_SOURCEMAP_BYTES - base) }));
    expect(atLimit.length).toBe(MAX_SOURCEMAP_BYTES);
    const res = await post(testKey, uploadBody('edge', 'sandbox', [{ fileUrl: 'https://app.example.com/edge.js', sourceMap: atLimit.toString('base64') }]));
    expect(res.body).toMatchObject({ uploaded: 1, errors: [] });
  });

  it('reports an entry that is not an object as an error row, not a failed batch', async () => {
    const res = await post(testKey, uploadBody('entries', 'sandbox', [null, 'x', [1], file('https://app.example.com/ok.js')]));
    expect(res.status).toBe(200);
    expect(res.body.errors.map((row: { fileUrl: unknown }) => row.fileUrl)).toEqual([null, null, null]);
    expect(res.body.uploaded).toBe(1);
  });
});

describe('re-uploads', () => {
  it('skips identical content for the same release and file URL, and uploads changed content', async () => {
    const first = await post(testKey, uploadBody('3.0.0', 'sandbox', [file('https://app.example.com/a.js', smallMap('a')), file('https://app.example.com/b.js', smallMap('b'))]));
    expect(first.body).toMatchObject({ uploaded: 2, skipped: 0 });

    const again = await post(testKey, uploadBody('3.0.0', 'sandbox', [file('https://app.example.com/a.js', smallMap('a')), file('https://app.example.com/b.js', smallMap('b2'))]));
    expect(again.body).toMatchObject({ uploaded: 1, skipped: 1, errors: [] });
    expect(again.body.results.map((row: { status: string }) => row.status)).toEqual(['skipped', 'uploaded']);

    const third = await post(testKey, uploadBody('3.0.0', 'sandbox', [file('https://app.example.com/b.js', smallMap('b2'))]));
    expect(third.body).toMatchObject({ uploaded: 0, skipped: 1 });
  });

  it('treats each release, file URL and environment separately', async () => {
    await post(testKey, uploadBody('4.0.0', 'sandbox', [file('https://app.example.com/a.js')]));
    const otherRelease = await post(testKey, uploadBody('4.0.1', 'sandbox', [file('https://app.example.com/a.js')]));
    expect(otherRelease.body).toMatchObject({ uploaded: 1, skipped: 0 });
    const otherUrl = await post(testKey, uploadBody('4.0.0', 'sandbox', [file('https://app.example.com/a2.js')]));
    expect(otherUrl.body).toMatchObject({ uploaded: 1, skipped: 0 });
    const otherEnv = await post(liveKey, uploadBody('4.0.0', 'production', [file('https://app.example.com/a.js')]));
    expect(otherEnv.body).toMatchObject({ uploaded: 1, skipped: 0 });
  });

  it('within one batch, outcomes follow the files in order as if uploaded one by one', async () => {
    const url = 'https://app.example.com/dup.js';
    const res = await post(testKey, uploadBody('5.0.0', 'sandbox', [file(url, smallMap('x')), file(url, smallMap('x')), file(url, smallMap('y')), file(url, smallMap('x'))]));
    expect(res.body.results.map((row: { status: string }) => row.status)).toEqual(['uploaded', 'skipped', 'uploaded', 'uploaded']);
    const again = await post(testKey, uploadBody('5.0.0', 'sandbox', [file(url, smallMap('x'))]));
    expect(again.body).toMatchObject({ uploaded: 0, skipped: 1 });
  });
});
