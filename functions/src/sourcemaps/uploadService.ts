import type { EnvScope } from '../store/scope';
import { checkUploadFile, type CheckedFile, type FileCheck, type FileErrorCode } from './fileCheck';
import { readManifests, storeSourceMaps, type StoreMeta } from './repository';

/**
 * One upload batch: check every file, compare with what the release already holds, store
 * what changed. Outcomes follow the files' order as if uploaded one after another: a file
 * whose content equals what is stored (or what an earlier file of the batch set) is
 * `skipped`; only the last content of each file URL is written.
 */
export type FileStatus = 'uploaded' | 'skipped' | 'error';

export interface FileErrorRow {
  fileUrl: string | null;
  status: 'error';
  error: { code: FileErrorCode; message: string };
}

export interface FileResultRow {
  fileUrl: string | null;
  /** SHA-256 hex of `fileUrl`, computed by the server; null when the URL was rejected. */
  fileUrlHash: string | null;
  status: FileStatus;
  error?: { code: FileErrorCode; message: string };
}

export interface BatchOutcome {
  uploaded: number;
  skipped: number;
  errors: FileErrorRow[];
  results: FileResultRow[];
}

export async function uploadSourceMapBatch(scope: EnvScope, release: string, files: readonly unknown[], meta: StoreMeta): Promise<BatchOutcome> {
  const checks: FileCheck[] = files.map(checkUploadFile);
  const accepted = checks.filter((check): check is CheckedFile => check.ok);
  const stored = await readManifests(scope, release, accepted.map((file) => file.fileUrlHash));

  const current = new Map<string, string>([...stored].map(([hash, manifest]) => [hash, manifest.contentHash]));
  const latest = new Map<string, CheckedFile>();
  const results: FileResultRow[] = checks.map((check) => {
    if (!check.ok) return { fileUrl: check.fileUrl, fileUrlHash: null, status: 'error', error: { code: check.code, message: check.message } };
    if (current.get(check.fileUrlHash) === check.contentHash) return { fileUrl: check.fileUrl, fileUrlHash: check.fileUrlHash, status: 'skipped' };
    current.set(check.fileUrlHash, check.contentHash);
    latest.set(check.fileUrlHash, check);
    return { fileUrl: check.fileUrl, fileUrlHash: check.fileUrlHash, status: 'uploaded' };
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
