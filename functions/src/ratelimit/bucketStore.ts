import type { Firestore } from 'firebase-admin/firestore';
import type { Env } from '../store/env';
import { countedTransaction } from '../store/counted';
import { fullBucket, takeUpTo, type BucketSpec, type BucketState } from './tokenBucket';
import { storedRecord } from '../store/converters';

const bucketStateConverter = storedRecord<BucketState>();

export interface BucketId {
  projectId: string;
  env: Env;
  bucket: string;
}

/** Where the shared bucket lives. Swappable so tests can inject a storage failure. */
export interface BucketStore {
  /** Takes up to `want` tokens from the shared bucket and returns how many it got. */
  lease(id: BucketId, spec: BucketSpec, want: number, now: number): Promise<number>;
}

/**
 * The shared bucket of a (project, environment, endpoint) in Firestore at
 * `projects/{p}/envs/{env}/rateBuckets/{bucket}`. Instances lease tokens in chunks, so the
 * document is written once per chunk, never once per request.
 */
export class FirestoreBucketStore implements BucketStore {
  constructor(private readonly db: Firestore) {}

  async lease(id: BucketId, spec: BucketSpec, want: number, now: number): Promise<number> {
    const ref = this.db.doc(`projects/${id.projectId}/envs/${id.env}/rateBuckets/${id.bucket}`).withConverter(bucketStateConverter);
    return countedTransaction(this.db, async (tx) => {
      const snapshot = await tx.get(ref);
      const state = snapshot.data() ?? fullBucket(spec, now);
      const { taken, state: next } = takeUpTo(state, spec, now, want);
      tx.set(ref, next);
      return taken;
    });
  }
}
