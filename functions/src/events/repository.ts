import { Timestamp, type CollectionReference, type DocumentReference, type DocumentSnapshot, type WriteBatch } from 'firebase-admin/firestore';
import type { EnvScope } from '../store/scope';
import { packStoredEvent, REQUEST_FIELD_PATHS } from './storedEventCodec';
import {
  ERROR_PASSES,
  landedBatchConverter,
  errorPassDocId,
  EVENT_BATCHES,
  EVENTS,
  type ErrorPassMarker,
  type IngestedEventFields,
  type LandedBatch,
  type ResolvedEventFields,
} from './model';

/** Event storage inside the key's partition. Every read and write goes through the scope. */

/**
 * The events collection the identity-resolution task writes to: untyped, because the task writes
 * packed documents (storedEventCodec.ts) and only tests whether they exist; every read of an
 * event's content goes through `storedEventConverter`, which reads both stored shapes.
 */
export const eventsCollection = (scope: EnvScope): CollectionReference => scope.collection(EVENTS);

export const batchRef = (scope: EnvScope, docId: string) => scope.doc(EVENT_BATCHES, docId).withConverter(landedBatchConverter);
export const batchesCollection = (scope: EnvScope) => scope.collection(EVENT_BATCHES).withConverter(landedBatchConverter);

export const errorPassRef = (scope: EnvScope, fingerprint: string, minute: number): DocumentReference =>
  scope.doc(ERROR_PASSES, errorPassDocId(fingerprint, minute));

export interface IngestReads {
  project: DocumentSnapshot;
  /** Whether each requested error-pass marker already exists, in request order. */
  markersTaken: boolean[];
}

/**
 * The request's one read: the project document (its telemetry retention) and any error-pass
 * markers a throttled batch needs, in one `getAll` that also carries the API-key re-check.
 * Sent at the end of the turn (`getAllTogether`): the batches of a burst share one read.
 */
export async function readIngestContext(scope: EnvScope, markers: DocumentReference[]): Promise<IngestReads> {
  const [project, ...markerSnapshots] = await scope.getAllTogether(scope.projectRef(), ...markers);
  return { project, markersTaken: markerSnapshots.map((snapshot) => snapshot.exists) };
}

/** A landed batch's document; a retry of the same events replaces it while it is pending. */
export const batchWrite = (batch: WriteBatch, scope: EnvScope, docId: string, landed: LandedBatch): void => {
  batch.set(batchRef(scope, docId), landed);
};

export const errorPassWrite = (batch: WriteBatch, scope: EnvScope, marker: ErrorPassMarker): void => {
  batch.set(errorPassRef(scope, marker.fingerprint, marker.minute), marker);
};

/**
 * Stores one event of a landed batch. An attributed event is written whole; one this resolution
 * could not attribute replaces only the request's fields, so a customer attached by an earlier
 * landing of the same event survives.
 */
export function putEvent(batch: WriteBatch, ref: DocumentReference, fields: IngestedEventFields, resolved: ResolvedEventFields | null): void {
  if (resolved) batch.set(ref, packStoredEvent(fields, resolved));
  else batch.set(ref, packStoredEvent(fields, null), { mergeFields: [...REQUEST_FIELD_PATHS] });
}

/**
 * Stores an event the task found absent: `create`, so that if another task stored it meanwhile
 * the commit fails and the task runs again (its report rollups then do not count it twice).
 */
export function createEvent(batch: WriteBatch, ref: DocumentReference, fields: IngestedEventFields, resolved: ResolvedEventFields | null): void {
  batch.create(ref, packStoredEvent(fields, resolved));
}

/**
 * Removes a batch whose events are stored, unless a retry replaced it since it was read (the
 * commit then fails, and the task runs again on the newer content).
 */
export function deleteLandedBatch(batch: WriteBatch, snapshot: DocumentSnapshot): void {
  batch.delete(snapshot.ref, snapshot.updateTime ? { lastUpdateTime: snapshot.updateTime } : { exists: true });
}

export const timestampFromMillis = (ms: number): Timestamp => Timestamp.fromMillis(ms);
