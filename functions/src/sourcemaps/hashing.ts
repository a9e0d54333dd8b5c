import { createHash } from 'node:crypto';

/**
 * `fileUrlHash`: SHA-256 of the file URL's UTF-8 bytes, lowercase hex. Always computed by the
 * server; a client-supplied value is ignored. It is also the storage id of the file's map.
 */
export function fileUrlHash(fileUrl: string): string {
  return createHash('sha256').update(fileUrl, 'utf8').digest('hex');
}

/** Content hash of a source map: SHA-256 of its decoded bytes, lowercase hex. */
export function contentHash(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
