import {
  Timestamp,
  type FieldPath,
  type CollectionReference,
  type DocumentReference,
  type DocumentSnapshot,
  type Firestore,
  type Query,
  type QuerySnapshot,
  type Transaction,
  type WriteBatch,
} from 'firebase-admin/firestore';
import { coalescedGetAll } from './coalesced';
import type { AnyDocumentReference, SnapshotsOf } from './converters';
import type { Env } from './env';
import { countedTransaction } from './counted';
import { countDocumentsRead, countRoundTrips } from './roundTrips';
import { PROJECT_ID } from '../ids';

/** Top-level collections that a scope may add entries to (see `EnvScope.ledgerRef`). */
export type CrossPartitionLedger = 'pendingErasures';

/**
 * A check that must pass before a request's data is returned or written: the presented API
 * key's document, re-read so that revocation and archiving take effect on the very next
 * request. On a warm instance it rides along with the request's first read (one `getAll`).
 */
export interface KeyGate<KeyDocument = unknown> {
  readonly ref: DocumentReference<KeyDocument>;
  /** Throws the request's refusal (a `DomainError`) when the freshly read key document no longer admits it. */
  accept(snapshot: DocumentSnapshot<KeyDocument>): void;
}

/**
 * The only way to reach environment-scoped data: every path starts with
 * `projects/{projectId}/envs/{env}/`, and both come from an authenticated API key (or, for
 * inbound rail notifications, from the verified payload). Reading another project's or the
 * other environment's data needs a second scope, which handlers are never given.
 *
 * Do I/O through the scope (`getAll`, `get`, `query`, `runTransaction`, `commit`) so that the
 * key gate is honoured before any data leaves or lands.
 */
export class EnvScope {
  private gate: KeyGate<any> | null;
  private verifying: Promise<void> | null = null;

  constructor(
    /** The unscoped handle: private, so that nothing reached through a scope leaves its partition. */
    private readonly db: Firestore,
    readonly projectId: string,
    readonly env: Env,
    // Any key document type: the gate reads it and judges it itself.
    gate: KeyGate<any> | null = null,
  ) {
    if (!PROJECT_ID.is(projectId)) throw new Error(`invalid project id for scope: ${projectId}`);
    this.gate = gate;
  }

  get rootPath(): string {
    return `projects/${this.projectId}/envs/${this.env}`;
  }

  collection(name: string): CollectionReference {
    return this.db.collection(`${this.rootPath}/${name}`);
  }

  doc(collectionName: string, id: string): DocumentReference {
    return this.collection(collectionName).doc(id);
  }

  /** The scope's project document (`projects/{projectId}`: plan, retention), shared by both environments. */
  projectRef(): DocumentReference {
    return this.db.collection('projects').doc(this.projectId);
  }

  /** One of the project's settings (`projects/{projectId}/settings/{id}`, e.g. its identity provider). */
  projectSettingRef(id: string): DocumentReference {
    return this.projectRef().collection('settings').doc(id);
  }

  /**
   * An entry about this partition in a top-level ledger that a worker sweeps across partitions
   * (`pendingErasures/{taskId}`, read by the retention worker). Only the named ledgers.
   */
  ledgerRef(ledger: CrossPartitionLedger, id: string): DocumentReference {
    return this.db.collection(ledger).doc(id);
  }

  /**
   * Reads documents in one round trip, verifying the key gate in the same call when pending.
   * Concurrent requests reading exactly the same documents share a read issued after each of
   * them arrived (see coalescedGetAll), so a revoked key is still refused on the next request.
   */
  getAll<Refs extends AnyDocumentReference[]>(...refs: Refs): Promise<SnapshotsOf<Refs>> {
    return this.sharedRead(refs, false);
  }

  /**
   * `getAll` for an endpoint whose requests come in bursts (SDKs flushing on timers): a read of
   * documents nobody is reading yet is sent at the end of the current turn of the event loop,
   * so the requests of a burst that reach it in the same turn share one read (see
   * Rounds.submit) instead of the first reading alone and the others waiting for a second.
   */
  getAllTogether<Refs extends AnyDocumentReference[]>(...refs: Refs): Promise<SnapshotsOf<Refs>> {
    return this.sharedRead(refs, true);
  }

  private async sharedRead<Refs extends AnyDocumentReference[]>(refs: Refs, atEndOfTurn: boolean): Promise<SnapshotsOf<Refs>> {
    if (refs.length === 0) {
      await this.ensureKeyVerified();
      return [] as SnapshotsOf<Refs>;
    }
    countRoundTrips();
    countDocumentsRead(refs.length);
    const gate = this.gate;
    // Each snapshot reads as its own reference's record type (each ref keeps its converter).
    if (!gate) return (await coalescedGetAll(this.db, refs, atEndOfTurn)) as SnapshotsOf<Refs>;
    const [keySnapshot, ...rest] = await coalescedGetAll(this.db, [gate.ref, ...refs], atEndOfTurn);
    gate.accept(keySnapshot);
    this.gate = null;
    return rest as SnapshotsOf<Refs>;
  }

  /**
   * Reads documents in one round trip, only the fields of `fieldMask` (all when empty), for
   * reports over many large rollup documents. Not shared with other requests (masks differ); a
   * pending key check runs beside it and must pass before anything is returned.
   */
  async getAllMasked<T>(refs: DocumentReference<T>[], fieldMask: readonly (string | FieldPath)[]): Promise<DocumentSnapshot<T>[]> {
    if (refs.length === 0) {
      await this.ensureKeyVerified();
      return [];
    }
    countRoundTrips();
    countDocumentsRead(refs.length);
    const untyped: AnyDocumentReference[] = refs;
    const read = fieldMask.length > 0 ? this.db.getAll(...untyped, { fieldMask: [...fieldMask] }) : this.db.getAll(...untyped);
    const [snapshots] = await Promise.all([read, this.ensureKeyVerified()]);
    return snapshots as DocumentSnapshot<T>[]; // each read through its reference's converter
  }

  async get<T>(ref: DocumentReference<T>): Promise<DocumentSnapshot<T>> {
    const [snapshot] = await this.getAll(ref);
    return snapshot;
  }

  /**
   * Runs a query beside the key gate's read (as `getAllMasked` does), so a query-first request
   * waits one round trip instead of two. The gate is awaited first: nothing is returned, and no
   * query error is reported, before a refused key's own refusal.
   */
  async query<T>(query: Query<T>): Promise<QuerySnapshot<T>> {
    countRoundTrips();
    const read = query.get();
    read.catch(() => undefined); // awaited below, unless the gate refuses first
    await this.ensureKeyVerified();
    const snapshot = await read;
    countDocumentsRead(snapshot.size);
    return snapshot;
  }

  /**
   * Runs a transaction (one commit beyond its reads, the first of which starts it); `fn` gets a transaction whose
   * reads count their round trips (store/counted.ts).
   */
  async runTransaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    await this.ensureKeyVerified();
    return countedTransaction(this.db, fn);
  }

  batch(): WriteBatch {
    return this.db.batch();
  }

  /** Commits the batch (one round trip); resolves to its commit time. */
  async commit(batch: WriteBatch): Promise<Timestamp> {
    await this.ensureKeyVerified();
    countRoundTrips();
    const results = await batch.commit();
    return results[0]?.writeTime ?? Timestamp.now();
  }

  /**
   * Verifies the key gate now if no read has carried it yet. Concurrent callers (a report's
   * parallel queries) share one read of the key.
   */
  async ensureKeyVerified(): Promise<void> {
    const gate = this.gate;
    if (!gate) return;
    this.verifying ??= (async () => {
      countRoundTrips();
      const snapshot = await gate.ref.get();
      gate.accept(snapshot);
      this.gate = null;
    })();
    await this.verifying;
  }
}
