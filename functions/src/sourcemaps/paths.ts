import type { DocumentReference } from 'firebase-admin/firestore';
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

export function manifestRef(scope: EnvScope, release: string, urlHash: string): DocumentReference {
  return scope.doc(`${RELEASES_COLLECTION}/${releaseDocId(release)}/files`, urlHash);
}

export function chunkRef(manifest: DocumentReference, generation: string, index: number): DocumentReference {
  return manifest.collection('chunks').doc(`${generation}_${String(index).padStart(4, '0')}`);
}
