import type { EnvScope } from '../store/scope';
import { decodeLandedBatch, encodeBatchEvents } from './batchCodec';
import { eventLogs } from './logs';
import { type BatchedEvent, type LandedBatch } from './model';
import { batchesCollection } from './repository';

/** Whose events an erasure removes: any of these identifiers, or the customer itself. */
export interface ErasedIdentities {
  customerId: string;
  developerIds: readonly string[];
  anonymousIds: readonly string[];
}

const PAGE_SIZE = 100;

/**
 * Removes an erased customer's events from the batches still waiting for their
 * identity-resolution task, without resolving anything (resolving would link the erased
 * identifiers to a new customer). A batch left empty is deleted; the others are rewritten.
 * Each write is conditional on the batch being unchanged since it was read: a retry that
 * replaced it makes this throw, and the erasure task runs again. Returns the events removed.
 */
export async function erasePendingEvents(scope: EnvScope, erased: ErasedIdentities): Promise<number> {
  const developerIds = new Set(erased.developerIds);
  const anonymousIds = new Set(erased.anonymousIds);
  const belongs = ({ hints }: BatchedEvent): boolean =>
    hints.serviceCustomerId === erased.customerId ||
    (hints.developerUserId !== null && developerIds.has(hints.developerUserId)) ||
    (hints.anonymousId !== null && anonymousIds.has(hints.anonymousId));

  let removed = 0;
  let query = batchesCollection(scope).orderBy('receivedAt').orderBy('__name__').limit(PAGE_SIZE);
  for (;;) {
    const page = await scope.query(query);
    const write = scope.batch();
    let writes = 0;
    for (const snapshot of page.docs) {
      const events = readableEvents(scope, snapshot.id, snapshot.data()!);
      if (!events) continue; // nothing of it can be read or stored; its TTL removes it
      const kept = events.filter((event) => !belongs(event));
      if (kept.length === events.length) continue;
      removed += events.length - kept.length;
      writes += 1;
      const unchanged = { lastUpdateTime: snapshot.updateTime };
      if (kept.length === 0) write.delete(snapshot.ref, unchanged);
      else write.update(snapshot.ref, { events: encodeBatchEvents(kept), eventCount: kept.length }, unchanged);
    }
    if (writes > 0) await scope.commit(write);
    if (page.size < PAGE_SIZE) return removed;
    query = query.startAfter(page.docs[page.docs.length - 1]);
  }
}

function readableEvents(scope: EnvScope, batchDocId: string, batch: LandedBatch): BatchedEvent[] | null {
  try {
    return decodeLandedBatch(batch);
  } catch (err) {
    eventLogs.batchUnreadable(scope.projectId, scope.env, batchDocId, (err as Error).message);
    return null;
  }
}
