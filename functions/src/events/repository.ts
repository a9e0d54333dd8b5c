import { Timestamp, type DocumentReference, type DocumentSnapshot, type WriteBatch } from 'firebase-admin/firestore';
import { projectRef } from '../keys/paths';
import type { EnvScope } from '../store/scope';
import {
  ERROR_PASSES,
  errorPassDocId,
  EVENT_BATCHES,
  EVENTS,
  INGESTED_FIELDS,
  type ErrorPassMarker,
  type IngestedEventFields,
  type LandedBatch,
  type ResolvedEventFields,
} from './model';

/** Event storage inside the key's partition. Every read and write goes through the scope. */

export const eventRef = (scope: EnvScope, docId: string): DocumentReference => scope.doc(EVENTS, docId);

export const batchRef = (scope: EnvScope, docId: string): DocumentReference => scope.doc(EVENT_BATCHES, docId);

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
 */
export async function readIngestContext(scope: EnvScope, markers: DocumentReference[]): Promise<IngestReads> {
  const [project, ...markerSnapshots] = await scope.getAll(projectRef(scope.db, scope.projectId), ...markers);
  return { project, markersTaken: markerSnapshots.map((snapshot) => snapshot.exists) };
}

/** Lands a batch; a retry of the same events replaces its pending document. */
export function putBatch(batch: WriteBatch, ref: DocumentReference, landed: LandedBatch): void {
  batch.set(ref, landed);
}

export function putErrorPass(batch: WriteBatch, ref: DocumentReference, marker: ErrorPassMarker): void {
  batch.set(ref, marker);
}

/**
 * Stores one event of a landed batch. Writing the request's fields replaces exactly those, so a
 * customer attached earlier survives a retry that this resolution could not attribute.
 */
export function putEvent(batch: WriteBatch, ref: DocumentReference, fields: IngestedEventFields, resolved: ResolvedEventFields | null): void {
  if (resolved) batch.set(ref, { ...fields, ...resolved }, { mergeFields: [...INGESTED_FIELDS, 'serviceCustomerId', 'resolvedAt'] });
  else batch.set(ref, fields, { mergeFields: [...INGESTED_FIELDS] });
}

/**
 * Removes a batch whose events are stored, unless a retry replaced it since it was read (the
 * commit then fails, and the task runs again on the newer content).
 */
export function deleteLandedBatch(batch: WriteBatch, snapshot: DocumentSnapshot): void {
  batch.delete(snapshot.ref, snapshot.updateTime ? { lastUpdateTime: snapshot.updateTime } : { exists: true });
}

export const timestampFromMillis = (ms: number): Timestamp => Timestamp.fromMillis(ms);
