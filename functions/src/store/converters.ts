import type {
  DocumentData,
  DocumentReference,
  DocumentSnapshot,
  FirestoreDataConverter,
  PartialWithFieldValue,
  QueryDocumentSnapshot,
  Transaction,
  WithFieldValue,
} from 'firebase-admin/firestore';

/**
 * The converter of a stored record type: it types what is read and written and changes nothing
 * (no copy, no field mapping), so documents stay as they are and it costs nothing at run time.
 * Each record type has one (beside its type, in the owning capability); reads go through refs
 * and queries `withConverter(...)` it, so no `.data() as T` cast is needed anywhere else
 * (test/foundation/converters.test.ts).
 */
export function storedRecord<T>(): FirestoreDataConverter<T, DocumentData> {
  return {
    // Written as given (FieldValue sentinels included): the record is already its stored shape.
    toFirestore: (record: WithFieldValue<T> | PartialWithFieldValue<T>) => record as DocumentData,
    // The one place a stored document is taken to be its record type.
    fromFirestore: (snapshot: QueryDocumentSnapshot) => snapshot.data() as T,
  };
}

/**
 * The converter of a record type stored in another shape (events, packed: events/
 * storedEventCodec.ts): `encode` turns a whole record into its document, `decode` reads a stored
 * document (in any shape the type has been stored in) as the record.
 */
export function encodedRecord<T>(encode: (record: T) => DocumentData, decode: (stored: DocumentData) => T): FirestoreDataConverter<T, DocumentData> {
  return {
    toFirestore: (record: WithFieldValue<T> | PartialWithFieldValue<T>) => encode(record as T),
    fromFirestore: (snapshot: QueryDocumentSnapshot) => decode(snapshot.data()),
  };
}

/** Any document reference, whatever record type it reads as. */
export type AnyDocumentReference = DocumentReference<any, any>;

/** The snapshot each reference of a list reads as: `[Ref<A>, Ref<B>]` → `[Snapshot<A>, Snapshot<B>]`. */
export type SnapshotsOf<Refs extends readonly AnyDocumentReference[]> = {
  -readonly [K in keyof Refs]: Refs[K] extends DocumentReference<infer T, infer D> ? DocumentSnapshot<T, D> : never;
};

/** `tx.getAll` of references of different record types, each snapshot typed as its reference. */
export async function readAllInTx<Refs extends AnyDocumentReference[]>(tx: Transaction, ...refs: Refs): Promise<SnapshotsOf<Refs>> {
  return (await tx.getAll(...refs)) as SnapshotsOf<Refs>;
}

/** Snapshots of several lists of references read in one call, split back into their lists. */
export type SnapshotGroups<Groups extends readonly AnyDocumentReference[][]> = { -readonly [K in keyof Groups]: SnapshotsOf<Groups[K]> };

/** Splits the snapshots of one `getAll` over `groups` (flattened in order) back into the groups. */
export function splitGroups<Groups extends readonly AnyDocumentReference[][]>(groups: Groups, snapshots: readonly DocumentSnapshot<unknown>[]): SnapshotGroups<Groups> {
  let start = 0;
  return groups.map((group) => snapshots.slice(start, (start += group.length))) as SnapshotGroups<Groups>;
}

/** `tx.getAll` over several lists of references (one round trip), split back into the lists. */
export async function readGroupsInTx<Groups extends AnyDocumentReference[][]>(tx: Transaction, ...groups: Groups): Promise<SnapshotGroups<Groups>> {
  return splitGroups(groups, await tx.getAll(...groups.flat()));
}
