import type { DocumentReference, DocumentSnapshot, Firestore, Transaction } from 'firebase-admin/firestore';
import type { AnyDocumentReference, SnapshotsOf } from './converters';
import { countRoundTrips } from './roundTrips';

/**
 * The store edge for what does not go through an EnvScope (key lookup, rail target resolution,
 * the limiter's shared buckets) and for every transaction: each call counts its round trips into
 * the current request (store/roundTrips.ts), so domain code never counts.
 */

/** Reads documents in one round trip. */
export async function countedGetAll<Refs extends AnyDocumentReference[]>(db: Firestore, refs: [...Refs]): Promise<SnapshotsOf<Refs>> {
  countRoundTrips();
  return (await db.getAll(...refs)) as SnapshotsOf<Refs>;
}

/** Reads one document in one round trip. */
export function countedGet<T>(ref: DocumentReference<T>): Promise<DocumentSnapshot<T>> {
  countRoundTrips();
  return ref.get();
}

/** A write through a document reference (`create`, `update`, `delete`): one round trip. */
export function countedWrite<T>(write: () => Promise<T>): Promise<T> {
  countRoundTrips();
  return write();
}

/**
 * `db.runTransaction(fn)`, counting one round trip per attempt (its commit, or the rollback of
 * a failed attempt) and handing `fn` a transaction whose `get` and `getAll` each count one.
 * There is no separate begin: this client (@google-cloud/firestore 9) starts the transaction
 * inside its first read (`withLazyStartedTransaction`), which test/foundation/roundTrips.test.ts
 * checks against the client's own RPCs.
 */
export function countedTransaction<T>(db: Firestore, fn: (tx: Transaction) => Promise<T>): Promise<T> {
  return db.runTransaction((tx) => {
    countRoundTrips();
    return fn(countingReads(tx));
  });
}

function countingReads(tx: Transaction): Transaction {
  return new Proxy(tx, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property);
      if (typeof value !== 'function') return value;
      if (property === 'get' || property === 'getAll') {
        return (...args: unknown[]) => {
          countRoundTrips();
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      // Writes (set, update, create, delete) chain: return the proxy, not the bare transaction.
      return (...args: unknown[]) => {
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        return result === target ? receiver : result;
      };
    },
  });
}
