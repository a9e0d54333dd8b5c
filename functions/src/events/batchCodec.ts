import { gunzipSync, gzipSync } from 'node:zlib';
import { BATCH_CODEC, type BatchedEvent, type LandedBatch } from './model';

/**
 * The events of a landed batch travel as one gzip-compressed JSON array (`gzip-json-1`).
 * Level 1: telemetry JSON still shrinks several times over, at a fraction of a millisecond
 * for a 100-event batch.
 */

/**
 * Largest payload one batch document carries. Firestore documents hold at most 1 MiB; the rest
 * is room for the landing fields. A request body is at most 1 MiB, so a batch only needs
 * splitting when its events are nearly incompressible.
 */
export const BATCH_PAYLOAD_LIMIT_BYTES = 900 * 1024;

export const encodeBatchEvents = (events: readonly BatchedEvent[]): Buffer => gzipSync(JSON.stringify(events), { level: 1 });

/**
 * Throws when the payload is not a gzip-compressed JSON array (a stored batch from a bug). The
 * error never quotes the payload (a parser's message would), so it is safe to log.
 */
export function decodeBatchEvents(payload: Uint8Array): BatchedEvent[] {
  let events: unknown;
  try {
    events = JSON.parse(gunzipSync(payload).toString('utf8'));
  } catch {
    throw new Error('batch payload is not gzip-compressed JSON');
  }
  if (!Array.isArray(events)) throw new Error('batch payload is not an array');
  return events as BatchedEvent[];
}

/** The events of a stored batch document; throws (a loggable message) when it cannot be read. */
export function decodeLandedBatch(batch: LandedBatch): BatchedEvent[] {
  if (batch.codec !== BATCH_CODEC) throw new Error('unknown batch codec');
  return decodeBatchEvents(batch.events);
}

export interface PackedBatch {
  events: BatchedEvent[];
  payload: Buffer;
}

/**
 * Encodes the landing events as few documents as their size allows: one, unless the compressed
 * payload exceeds `limitBytes`; then the events are halved until every part fits.
 */
export function packBatchEvents(events: BatchedEvent[], limitBytes = BATCH_PAYLOAD_LIMIT_BYTES): PackedBatch[] {
  const payload = encodeBatchEvents(events);
  if (payload.length <= limitBytes || events.length === 1) return [{ events, payload }];
  const half = Math.ceil(events.length / 2);
  return [...packBatchEvents(events.slice(0, half), limitBytes), ...packBatchEvents(events.slice(half), limitBytes)];
}
