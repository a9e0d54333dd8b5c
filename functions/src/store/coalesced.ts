import type { DocumentData, DocumentReference, DocumentSnapshot, Firestore, Timestamp } from 'firebase-admin/firestore';
import { Rounds } from './rounds';

/**
 * Store calls that concurrent requests share (see Rounds): identical reads, and plain document
 * sets of one partition. Under a burst, ten requests that each read the same key and project
 * documents and land one batch cost about four store round trips instead of twenty.
 */

const reads = new WeakMap<Firestore, Rounds<DocumentReference[], DocumentSnapshot[]>>();

/** `db.getAll(refs)`, shared with concurrent callers reading exactly the same documents. */
export function coalescedGetAll(db: Firestore, refs: DocumentReference[]): Promise<DocumentSnapshot[]> {
  let rounds = reads.get(db);
  if (!rounds) {
    rounds = new Rounds(async (items) => {
      const snapshots = await db.getAll(...items[0]); // every item of a round names the same documents
      return items.map(() => [...snapshots]); // each caller its own array: one may reorder it
    });
    reads.set(db, rounds);
  }
  return rounds.submit(refs.map((ref) => ref.path).join('\n'), refs);
}

export interface SetWrite {
  ref: DocumentReference;
  data: DocumentData;
  /** Rough encoded size, to keep a shared commit within the store's request limits. */
  bytes: number;
}

/** A shared commit stays well inside Firestore's 500 writes and the emulator's 4 MiB messages. */
const COMMIT_MAX_WRITES = 450;
const COMMIT_MAX_BYTES = 2 * 1024 * 1024;

const commits = new WeakMap<Firestore, Rounds<SetWrite[], Timestamp>>();

/**
 * Commits the sets in one commit together with the sets other requests of the same partition
 * submit meanwhile (never with another partition's). Resolves to the commit time; a failed
 * commit fails every request in it, and each retries on its own.
 */
export function groupCommit(db: Firestore, partition: string, writes: SetWrite[]): Promise<Timestamp> {
  let rounds = commits.get(db);
  if (!rounds) {
    rounds = new Rounds(async (items) => {
      const batch = db.batch();
      for (const write of items.flat()) batch.set(write.ref, write.data);
      const [first] = await batch.commit();
      return items.map(() => first.writeTime);
    }, fittingCommit);
    commits.set(db, rounds);
  }
  return rounds.submit(partition, writes);
}

function fittingCommit(items: readonly SetWrite[][]): number {
  let writes = 0;
  let bytes = 0;
  for (let i = 0; i < items.length; i += 1) {
    writes += items[i].length;
    bytes += items[i].reduce((sum, write) => sum + write.bytes, 0);
    if (writes > COMMIT_MAX_WRITES || bytes > COMMIT_MAX_BYTES) return i;
  }
  return items.length;
}
