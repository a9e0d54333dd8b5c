import { randomBytes } from 'node:crypto';
import type { DocumentReference, DocumentSnapshot } from 'firebase-admin/firestore';
import type { EnvScope } from '../store/scope';
import { BatchWriter } from './batchWriter';
import { CorruptSourceMapError, packSourceMap, unpackSourceMap } from './codec';
import { sourcemapLogs } from './logs';
import { chunkRef, manifestRef, manifestsOfRelease, type SourceMapManifest } from './paths';

/**
 * Source-map storage. A manifest document per (release, file URL) names the current
 * generation of chunks; chunks are written first and the manifests flipped in one
 * transaction, so a reader sees either the old map or the new one, never a mix. Chunks of a
 * replaced generation are deleted after the flip.
 */

export interface MapToStore {
  fileUrl: string;
  fileUrlHash: string;
  contentHash: string;
  bytes: Buffer;
}

export interface StoreMeta {
  now: number;
  keyId: string;
}

/** The current manifests of the given file-URL hashes, in one read. */
export async function readManifests(scope: EnvScope, release: string, urlHashes: readonly string[]): Promise<Map<string, SourceMapManifest>> {
  const unique = [...new Set(urlHashes)];
  const snapshots = await scope.getAll(...unique.map((hash) => manifestRef(scope, release, hash)));
  const manifests = new Map<string, SourceMapManifest>();
  snapshots.forEach((snapshot, i) => {
    if (snapshot.exists) manifests.set(unique[i], snapshot.data()!);
  });
  return manifests;
}

export async function storeSourceMaps(scope: EnvScope, release: string, maps: readonly MapToStore[], meta: StoreMeta): Promise<void> {
  if (maps.length === 0) return;
  const writer = new BatchWriter(scope);
  const flips: { ref: DocumentReference<SourceMapManifest>; manifest: SourceMapManifest }[] = [];
  for (const map of maps) {
    const { chunks, storedBytes } = await packSourceMap(map.bytes);
    const generation = randomBytes(8).toString('hex');
    const ref = manifestRef(scope, release, map.fileUrlHash);
    for (const [index, chunk] of chunks.entries()) {
      await writer.set(chunkRef(ref, generation, index), { index, data: chunk }, chunk.length);
    }
    flips.push({
      ref,
      manifest: {
        release,
        fileUrl: map.fileUrl,
        fileUrlHash: map.fileUrlHash,
        contentHash: map.contentHash,
        byteLength: map.bytes.length,
        storedByteLength: storedBytes,
        encoding: 'gzip',
        generation,
        chunkCount: chunks.length,
        uploadedAt: meta.now,
        uploadedByKeyId: meta.keyId,
      },
    });
  }
  await writer.flush();

  const replaced = await scope.runTransaction(async (tx) => {
    const current = await tx.getAll(...flips.map((flip) => flip.ref));
    for (const flip of flips) tx.set(flip.ref, flip.manifest);
    return current.flatMap((snapshot, i) => (snapshot.exists ? [{ ref: flips[i].ref, previous: snapshot.data()! }] : []));
  });
  await deleteGenerations(scope, release, replaced);
}

/** Chunks of replaced generations are unreferenced; failing to delete them only leaks storage. */
async function deleteGenerations(scope: EnvScope, release: string, replaced: { ref: DocumentReference<SourceMapManifest>; previous: SourceMapManifest }[]): Promise<void> {
  if (replaced.length === 0) return;
  try {
    const writer = new BatchWriter(scope);
    for (const { ref, previous } of replaced) {
      for (let index = 0; index < previous.chunkCount; index += 1) await writer.delete(chunkRef(ref, previous.generation, index));
    }
    await writer.flush();
  } catch (err) {
    sourcemapLogs.replacedChunksNotDeleted(scope.projectId, scope.env, release, err instanceof Error ? err.message : String(err));
  }
}

export interface LoadedSourceMap {
  manifest: SourceMapManifest;
  bytes: Buffer;
}

/**
 * The stored maps of the given file-URL hashes (absent when none is stored): two reads, the
 * manifests then every chunk. A map whose chunks were replaced between the two reads is read
 * again once; one that still fails is logged and left out.
 */
export async function loadSourceMaps(scope: EnvScope, release: string, urlHashes: readonly string[]): Promise<Map<string, LoadedSourceMap>> {
  const loaded = new Map<string, LoadedSourceMap>();
  let pending = await readManifests(scope, release, urlHashes);
  for (let attempt = 1; pending.size > 0; attempt += 1) {
    const failed = await loadChunks(scope, release, pending, loaded);
    const fresh = failed.size > 0 && attempt === 1 ? await readManifests(scope, release, [...failed.keys()]) : new Map<string, SourceMapManifest>();
    pending = new Map();
    for (const [hash, failure] of failed) {
      const manifest = fresh.get(hash);
      if (manifest && manifest.generation !== failure.manifest.generation) pending.set(hash, manifest);
      else sourcemapLogs.mapUnreadable(scope.projectId, scope.env, release, hash, failure.detail);
    }
  }
  return loaded;
}

async function loadChunks(
  scope: EnvScope,
  release: string,
  manifests: Map<string, SourceMapManifest>,
  into: Map<string, LoadedSourceMap>,
): Promise<Map<string, { manifest: SourceMapManifest; detail: string }>> {
  const entries = [...manifests];
  const refs = entries.flatMap(([hash, manifest]) =>
    Array.from({ length: manifest.chunkCount }, (_, index) => chunkRef(manifestRef(scope, release, hash), manifest.generation, index)),
  );
  const snapshots = await scope.getAll(...refs);
  const failed = new Map<string, { manifest: SourceMapManifest; detail: string }>();
  let offset = 0;
  for (const [hash, manifest] of entries) {
    const own = snapshots.slice(offset, offset + manifest.chunkCount);
    offset += manifest.chunkCount;
    try {
      into.set(hash, { manifest, bytes: await unpackSourceMap(own.map(chunkData), manifest.contentHash) });
    } catch (err) {
      if (!(err instanceof CorruptSourceMapError)) throw err;
      failed.set(hash, { manifest, detail: err.message });
    }
  }
  return failed;
}

function chunkData(snapshot: DocumentSnapshot): Buffer {
  const data = snapshot.exists ? (snapshot.get('data') as unknown) : undefined;
  if (!Buffer.isBuffer(data)) throw new CorruptSourceMapError(`chunk ${snapshot.id} is missing`);
  return data;
}

/** Every source map of a release (its manifests, no payload): the dashboard's Errors page. */
export async function listManifests(scope: EnvScope, release: string): Promise<SourceMapManifest[]> {
  const snapshot = await scope.query(manifestsOfRelease(scope, release));
  return snapshot.docs.map((d) => d.data()).sort((a, b) => a.fileUrl.localeCompare(b.fileUrl));
}
