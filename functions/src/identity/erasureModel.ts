import type { CrossPartitionLedger } from '../store/scope';
import type { Firestore } from 'firebase-admin/firestore';
import type { Env } from '../store/env';
import { CUSTOMER_ID } from '../ids';
import { storedRecord } from '../store/converters';

/**
 * Erasure bookkeeping.
 *
 * - The customer record carries the decision (`status: erasure_pending`, `erasure`).
 * - `pendingErasures/{taskId}` (top level, no personal data: partition and customer id only)
 *   lists every accepted erasure until it completes. The retention worker scans it for erasures
 *   whose task was lost or gave up, without a collection-group query over every partition.
 */
export interface ErasurePayload {
  projectId: string;
  env: Env;
  customerId: string;
}

export interface PendingErasure extends ErasurePayload {
  taskId: string;
  requestedAt: number;
}

export const PENDING_ERASURES = 'pendingErasures' satisfies CrossPartitionLedger;

/** Deterministic per customer, so repeated forget requests enqueue one task. */
export const erasureTaskId = (p: ErasurePayload): string => `erasure-${p.projectId}-${p.env}-${p.customerId}`;

export const pendingErasureRef = (db: Firestore, taskId: string) => db.collection(PENDING_ERASURES).doc(taskId).withConverter(pendingErasureConverter);

export const erasureRequestedEventId = (customerId: string): string => `srv_erasure_${customerId}`;
export const erasureCompletedEventId = (customerId: string): string => `srv_erasure_completed_${customerId}`;

export function isErasurePayload(value: unknown): value is ErasurePayload {
  const v = value as Partial<ErasurePayload> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.projectId === 'string' &&
    (v.env === 'test' || v.env === 'live') &&
    typeof v.customerId === 'string' &&
    CUSTOMER_ID.is(v.customerId)
  );
}

export const pendingErasureConverter = storedRecord<PendingErasure>();
