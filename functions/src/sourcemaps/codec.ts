import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { contentHash } from './hashing';
import { CHUNK_BYTES, MAX_SOURCEMAP_BYTES } from './limits';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/**
 * Stored form of a source map: gzip of its exact bytes (maps shrink four to eight times),
 * cut into chunks that each fit a Firestore document. A map that compresses to less than one
 * chunk takes one document; nothing limits the number of chunks but the upload size limit.
 */
export async function packSourceMap(bytes: Buffer): Promise<{ chunks: Buffer[]; storedBytes: number }> {
  const compressed = await gzipAsync(bytes);
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < compressed.length; offset += CHUNK_BYTES) {
    chunks.push(compressed.subarray(offset, offset + CHUNK_BYTES));
  }
  return { chunks, storedBytes: compressed.length };
}

export class CorruptSourceMapError extends Error {}

/** Reassembles and decompresses a stored map, and proves it is the map that was uploaded. */
export async function unpackSourceMap(chunks: Buffer[], expectedContentHash: string): Promise<Buffer> {
  let bytes: Buffer;
  try {
    bytes = await gunzipAsync(Buffer.concat(chunks), { maxOutputLength: MAX_SOURCEMAP_BYTES });
  } catch (err) {
    throw new CorruptSourceMapError(`stored chunks do not decompress: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (contentHash(bytes) !== expectedContentHash) throw new CorruptSourceMapError('stored chunks do not match the content hash');
  return bytes;
}
