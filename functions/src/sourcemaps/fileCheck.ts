import type { ErrorCode } from '../errors/codes';
import { contentHash, fileUrlHash } from './hashing';
import { FILE_URL_PATTERN, MAX_FILE_URL_LENGTH, MAX_SOURCEMAP_BYTES } from './limits';
import { parseSourceMapJson, SourceMapFormatError, toTraceMap } from './sourceMapFormat';

/**
 * The per-file checks of an upload, in order: runtime URL, presence of the map, size, base64,
 * then JSON and version 3. A failing file becomes an `error` row; it never fails the batch.
 */
export type FileErrorCode = Extract<ErrorCode, 'invalid_runtime_url' | 'missing_sourcemap' | 'invalid_sourcemap' | 'sourcemap_too_large'>;

export interface DecodedFile {
  ok: true;
  fileUrl: string;
  fileUrlHash: string;
  /** The decoded source-map bytes, stored exactly as received. */
  bytes: Buffer;
  contentHash: string;
}

export interface RejectedFile {
  ok: false;
  /** The file URL as sent when it was a string, else null. */
  fileUrl: string | null;
  code: FileErrorCode;
  message: string;
}

/**
 * Stage one, for every file: the runtime URL, presence, size and base64 of the map, and the
 * hashes. Cheap enough to run before the store says which files are already there.
 */
export function decodeUploadFile(entry: unknown): DecodedFile | RejectedFile {
  const file = typeof entry === 'object' && entry !== null && !Array.isArray(entry) ? (entry as Record<string, unknown>) : {};
  const fileUrl = typeof file.fileUrl === 'string' ? file.fileUrl : null;
  const reject = (code: FileErrorCode, message: string): RejectedFile => ({ ok: false, fileUrl, code, message });

  if (fileUrl === null || fileUrl.length > MAX_FILE_URL_LENGTH || !FILE_URL_PATTERN.test(fileUrl)) {
    return reject('invalid_runtime_url', `\`fileUrl\` must be a scheme:// URL of at most ${MAX_FILE_URL_LENGTH} characters (for example https://, app:// or webpack://).`);
  }
  if (file.sourceMap === undefined || file.sourceMap === null) return reject('missing_sourcemap', '`sourceMap` is missing.');
  if (typeof file.sourceMap !== 'string') return reject('invalid_sourcemap', '`sourceMap` must be a base64-encoded string.');
  // MIME-style line breaks are tolerated; nothing else outside the base64 alphabets is.
  const encoded = /[\t\n\r ]/.test(file.sourceMap) ? file.sourceMap.replace(/[\t\n\r ]+/g, '') : file.sourceMap;
  if (encoded === '') return reject('missing_sourcemap', '`sourceMap` is empty.');
  if (base64DecodedLength(encoded) > MAX_SOURCEMAP_BYTES) {
    return reject('sourcemap_too_large', `The decoded source map exceeds ${MAX_SOURCEMAP_BYTES} bytes.`);
  }
  if (!isBase64(encoded)) return reject('invalid_sourcemap', '`sourceMap` is not valid base64.');
  const bytes = Buffer.from(encoded, 'base64');
  return { ok: true, fileUrl, fileUrlHash: fileUrlHash(fileUrl), bytes, contentHash: contentHash(bytes) };
}

/**
 * Stage two, only for content not already stored: the bytes are JSON and a version 3 map
 * that trace-mapping can index. Returns the rejection, or null when the map is valid.
 */
export function checkSourceMapBytes(file: DecodedFile): RejectedFile | null {
  try {
    toTraceMap(parseSourceMapJson(file.bytes));
    return null;
  } catch (err) {
    if (err instanceof SourceMapFormatError) return { ok: false, fileUrl: file.fileUrl, code: 'invalid_sourcemap', message: err.message };
    throw err;
  }
}

const BASE64_PATTERN = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Standard or URL-safe alphabet, padded or not (a lone trailing character is never valid). */
export function isBase64(encoded: string): boolean {
  if (!BASE64_PATTERN.test(encoded) || encoded.length % 4 === 1) return false;
  return !encoded.includes('=') || encoded.length % 4 === 0;
}

export function base64DecodedLength(encoded: string): number {
  const padding = encoded.endsWith('==') ? 2 : encoded.endsWith('=') ? 1 : 0;
  return Math.floor(((encoded.length - padding) * 3) / 4);
}
