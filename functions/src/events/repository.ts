import { Timestamp, type DocumentReference, type DocumentSnapshot, type WriteBatch } from 'firebase-admin/firestore';
import { projectRef } from '../keys/paths';
import type { EnvScope } from '../store/scope';
import { ERROR_PASSES, errorPassDocId, EVENTS, INGESTED_FIELDS, type ErrorPassMarker, type IngestedEventFields } from './model';

/** Event storage inside the key's partition. Every read and write goes through the scope. */

export const eventRef = (scope: EnvScope, docId: string): DocumentReference => scope.doc(EVENTS, docId);

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

/**
 * Lands an event: a retry replaces exactly the fields the request path owns, so a
 * `serviceCustomerId` that identity resolution already attached survives it.
 */
export function putEvent(batch: WriteBatch, ref: DocumentReference, fields: IngestedEventFields): void {
  batch.set(ref, fields, { mergeFields: [...INGESTED_FIELDS] });
}

export function putErrorPass(batch: WriteBatch, ref: DocumentReference, marker: ErrorPassMarker): void {
  batch.set(ref, marker);
}

export const timestampFromMillis = (ms: number): Timestamp => Timestamp.fromMillis(ms);

/** Identity resolution: attaches the resolved customer to a stored event. */
export function attachCustomer(batch: WriteBatch, ref: DocumentReference, serviceCustomerId: string, resolvedAt: number): void {
  batch.update(ref, { serviceCustomerId, resolvedAt });
}
