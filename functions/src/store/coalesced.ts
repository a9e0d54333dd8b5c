import type { DocumentSnapshot, Firestore } from 'firebase-admin/firestore';
import type { AnyDocumentReference } from './converters';
import { Rounds } from './rounds';

/**
 * Single-flight of identical reads (see Rounds): concurrent requests reading exactly the same
 * documents (the key and project documents of a burst) share one `getAll`. In production this
 * saves billed document reads and round trips, not only emulator time, so it is kept; commits
 * are never shared across requests (docs/benchmarks.md, "Store access").
 */

const reads = new WeakMap<Firestore, Rounds<AnyDocumentReference[], DocumentSnapshot<unknown>[]>>();

/**
 * `db.getAll(refs)`, shared with concurrent callers reading exactly the same documents. Callers
 * may type the same document differently; converters never change data (store/converters.ts),
 * so a snapshot read through another caller's reference reads the same. `atEndOfTurn`: a read
 * nobody has in flight yet is sent at the end of the current turn, shared by the callers of
 * that turn (Rounds.submit).
 */
export function coalescedGetAll(db: Firestore, refs: AnyDocumentReference[], atEndOfTurn = false): Promise<DocumentSnapshot<unknown>[]> {
  let rounds = reads.get(db);
  if (!rounds) {
    rounds = new Rounds(async (items) => {
      const snapshots = await db.getAll(...items[0]); // every item of a round names the same documents
      return items.map(() => [...snapshots]); // each caller its own array: one may reorder it
    });
    reads.set(db, rounds);
  }
  return rounds.submit(refs.map((ref) => ref.path).join('\n'), refs, atEndOfTurn);
}
