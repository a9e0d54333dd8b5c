import type { DocumentReference } from 'firebase-admin/firestore';
import { storedRecord } from '../store/converters';
import type { EnvScope } from '../store/scope';

/**
 * Where source maps live, always under the key's partition:
 *   projects/{p}/envs/{env}/sourcemapReleases/rel_{release}/files/{fileUrlHash}   manifest
 *   …/files/{fileUrlHash}/chunks/{generation}_{index}                            payload chunks
 * The `rel_` prefix keeps release names such as `.` or `..` valid document ids.
 */
export const RELEASES_COLLECTION = 'sourcemapReleases';

export function releaseDocId(release: string): string {
  return `rel_${release}`;
}

/** A release's map of one file URL (its chunks hang below it). */
export interface SourceMapManifest {
  release: string;
  fileUrl: string;
  fileUrlHash: string;
  /** SHA-256 (hex) of the decoded map bytes: an identical re-upload is `skipped`. */
  contentHash: string;
  byteLength: number;
  storedByteLength: number;
  encoding: 'gzip';
  generation: string;
  chunkCount: number;
  uploadedAt: number;
  uploadedByKeyId: string;
}

const manifestConverter = storedRecord<SourceMapManifest>();

export const manifestsOfRelease = (scope: EnvScope, release: string) =>
  scope.collection(`${RELEASES_COLLECTION}/${releaseDocId(release)}/files`).withConverter(manifestConverter);

export function manifestRef(scope: EnvScope, release: string, urlHash: string): DocumentReference<SourceMapManifest> {
  return manifestsOfRelease(scope, release).doc(urlHash);
}

export function chunkRef(manifest: DocumentReference<SourceMapManifest>, generation: string, index: number): DocumentReference {
  return manifest.collection('chunks').doc(`${generation}_${String(index).padStart(4, '0')}`);
}
