import type { EnvScope } from '../store/scope';
import { checkSourceMapBytes, decodeUploadFile, type DecodedFile, type RejectedFile } from './fileCheck';
import { readManifests, storeSourceMaps, type StoreMeta } from './repository';
import type { FileErrorRow, FileResultRow } from '../wire/sourcemaps';

/**
 * One upload batch: check every file, compare with what the release already holds, store
 * what changed. Outcomes follow the files' order as if uploaded one after another: a file
 * whose content equals what is stored (or what an earlier file of the batch set) is
 * `skipped`; only the last content of each file URL is written.
 */
export type FileStatus = 'uploaded' | 'skipped' | 'error';

export interface BatchOutcome {
  uploaded: number;
  skipped: number;
  errors: FileErrorRow[];
  results: FileResultRow[];
}

export async function uploadSourceMapBatch(scope: EnvScope, release: string, files: readonly unknown[], meta: StoreMeta): Promise<BatchOutcome> {
  const decoded = files.map(decodeUploadFile);
  const accepted = decoded.filter((file): file is DecodedFile => file.ok);
  const stored = await readManifests(scope, release, accepted.map((file) => file.fileUrlHash));

  const current = new Map<string, string>([...stored].map(([hash, manifest]) => [hash, manifest.contentHash]));
  // Stored content passed these checks when it was uploaded: a skipped file is never parsed again.
  const validContent = new Set(current.values());
  const latest = new Map<string, DecodedFile>();
  const results: FileResultRow[] = decoded.map((file) => {
    if (!file.ok) return errorRow(file);
    if (current.get(file.fileUrlHash) === file.contentHash) return { fileUrl: file.fileUrl, fileUrlHash: file.fileUrlHash, status: 'skipped' };
    const rejection = validContent.has(file.contentHash) ? null : checkSourceMapBytes(file);
    if (rejection) return errorRow(rejection);
    validContent.add(file.contentHash);
    current.set(file.fileUrlHash, file.contentHash);
    latest.set(file.fileUrlHash, file);
    return { fileUrl: file.fileUrl, fileUrlHash: file.fileUrlHash, status: 'uploaded' };
  });

  // A file URL changed and changed back within the batch needs no write.
  const writes = [...latest.values()].filter((file) => stored.get(file.fileUrlHash)?.contentHash !== file.contentHash);
  await storeSourceMaps(scope, release, writes, meta);

  return {
    uploaded: results.filter((row) => row.status === 'uploaded').length,
    skipped: results.filter((row) => row.status === 'skipped').length,
    errors: results.flatMap((row) => (row.error ? [{ fileUrl: row.fileUrl, status: 'error' as const, error: row.error }] : [])),
    results,
  };
}

function errorRow(file: RejectedFile): FileResultRow {
  return { fileUrl: file.fileUrl, fileUrlHash: null, status: 'error', error: { code: file.code, message: file.message } };
}
