/**
 * Guarantees (pure logic, no store): the per-file checks accept every form of a valid source
 * map that build tools produce (standard or URL-safe base64, wrapped lines, BOM, the XSSI
 * guard line, indexed maps) and classify each broken file with the right per-file code.
 */
import { base64DecodedLength, isBase64 } from '../../functions/src/sourcemaps/fileCheck';
import { checkUploadFile } from '../support/sourcemapUpload';
import { fileUrlHash } from '../../functions/src/sourcemaps/hashing';
import { base64Json, smallMap } from './fixtures';

const url = 'https://cdn.example.com/app.js';
const codeOf = (entry: unknown) => {
  const check = checkUploadFile(entry);
  return check.ok ? 'ok' : check.code;
};

describe('base64', () => {
  it('accepts padded, unpadded and URL-safe forms and rejects everything else', () => {
    expect(isBase64('QUJD')).toBe(true);
    expect(isBase64('QUI=')).toBe(true);
    expect(isBase64('QUI')).toBe(true);
    expect(isBase64('-_-_')).toBe(true);
    expect(isBase64('QUJD=A==')).toBe(false);
    expect(isBase64('QUJDR')).toBe(false);
    expect(isBase64('QU=')).toBe(false);
    expect(isBase64('QU JD')).toBe(false);
    expect(isBase64('QUJ*')).toBe(false);
  });

  it('computes the decoded length without decoding', () => {
    for (const text of ['', 'a', 'ab', 'abc', 'abcd', 'x'.repeat(1001)]) {
      const encoded = Buffer.from(text).toString('base64');
      expect(base64DecodedLength(encoded)).toBe(text.length);
      expect(base64DecodedLength(encoded.replace(/=+$/, ''))).toBe(text.length);
    }
  });
});

describe('checkUploadFile', () => {
  it('returns the decoded bytes, the URL hash and the content hash of a valid file', () => {
    const check = checkUploadFile({ fileUrl: url, sourceMap: base64Json(smallMap()) });
    if (!check.ok) throw new Error(check.message);
    expect(check.bytes.toString('utf8')).toBe(JSON.stringify(smallMap()));
    expect(check.fileUrlHash).toBe(fileUrlHash(url));
    expect(check.fileUrlHash).toMatch(/^[0-9a-f]{64}$/);
    expect(check.contentHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('accepts line-wrapped base64, URL-safe base64, a BOM and the XSSI guard line', () => {
    const json = JSON.stringify(smallMap('a', { sourcesContent: ['const x = "ü?>>>";'] }));
    const standard = Buffer.from(json).toString('base64');
    expect(codeOf({ fileUrl: url, sourceMap: standard.replace(/(.{76})/g, '$1\n') })).toBe('ok');
    expect(codeOf({ fileUrl: url, sourceMap: Buffer.from(json).toString('base64url') })).toBe('ok');
    expect(codeOf({ fileUrl: url, sourceMap: Buffer.from(`\ufeff${json}`).toString('base64') })).toBe('ok');
    expect(codeOf({ fileUrl: url, sourceMap: Buffer.from(`)]}'\n${json}`).toString('base64') })).toBe('ok');
  });

  it('accepts an indexed (sectioned) map with embedded maps', () => {
    const indexed = { version: 3, sections: [{ offset: { line: 0, column: 0 }, map: smallMap('a') }, { offset: { line: 10, column: 0 }, map: smallMap('b') }] };
    expect(codeOf({ fileUrl: url, sourceMap: base64Json(indexed) })).toBe('ok');
    const nested = { version: 3, sections: [{ offset: { line: 0, column: 0 }, map: { ...smallMap(), version: 2 } }] };
    expect(codeOf({ fileUrl: url, sourceMap: base64Json(nested) })).toBe('invalid_sourcemap');
  });

  it('refuses sections nested past the nesting limit as invalid_sourcemap, never a stack overflow', () => {
    // As text: JSON.stringify itself would overflow at this depth.
    const nestedSections = (levels: number) =>
      Buffer.from(`${'{"version":3,"sections":[{"offset":{"line":0,"column":0},"map":'.repeat(levels)}${JSON.stringify(smallMap())}${'}]}'.repeat(levels)}`).toString('base64');
    expect(codeOf({ fileUrl: url, sourceMap: nestedSections(3) })).toBe('ok');
    const check = checkUploadFile({ fileUrl: url, sourceMap: nestedSections(20_000) });
    expect(check).toMatchObject({ ok: false, code: 'invalid_sourcemap', message: expect.stringContaining('64 levels') });
  });

  it('checks the URL first, then presence, then the map', () => {
    expect(codeOf({ fileUrl: 'relative.js' })).toBe('invalid_runtime_url');
    expect(codeOf({ fileUrl: url })).toBe('missing_sourcemap');
    expect(codeOf({ fileUrl: url, sourceMap: ' \n ' })).toBe('missing_sourcemap');
    expect(codeOf({ fileUrl: url, sourceMap: {} })).toBe('invalid_sourcemap');
    expect(codeOf({ fileUrl: url, sourceMap: base64Json({ ...smallMap(), names: [1] }) })).toBe('invalid_sourcemap');
    expect(codeOf({ fileUrl: url, sourceMap: base64Json({ ...smallMap(), sources: 'a.ts' }) })).toBe('invalid_sourcemap');
    expect(codeOf({ fileUrl: url, sourceMap: base64Json('{"version":3}') })).toBe('invalid_sourcemap');
  });

  it('accepts the runtime URL schemes of browsers, bundlers and mobile apps', () => {
    for (const fileUrl of ['https://a.example/x.js', 'app:///index.android.bundle', 'webpack-internal:///./src/a.ts', 'ionic://localhost/main.js', 'chrome-extension://abc/bg.js']) {
      expect(codeOf({ fileUrl, sourceMap: base64Json(smallMap()) })).toBe('ok');
    }
    for (const fileUrl of ['a.js', 'https:x.js', '1http://x.js', 'https://x.js\n', 'ht tp://x.js', '://x.js']) {
      expect(codeOf({ fileUrl, sourceMap: base64Json(smallMap()) })).toBe('invalid_runtime_url');
    }
  });
});
