import { FieldPath, type Query } from 'firebase-admin/firestore';
import type { AuditEntry } from '../audit/model';
import { toPublicAuditEntry } from '../audit/publicShape';
import { EVENTS, type StoredEvent } from '../events/model';
import { storedEventConverter } from '../events/storedEventCodec';
import { decodeCursor, encodeCursor } from '../reports/cursor';
import type { Platform } from '../wire/vocabulary';
import type { EnvScope } from '../store/scope';
import { auditCollection } from '../audit/append';

/**
 * A customer's audit trail and recent events, newest first, a page at a time: one query each
 * (`customerId` / `serviceCustomerId` equal, ordered by time then document id, descending;
 * composite indexes in firestore.indexes.json), continued from the last row of the previous page.
 */
export const HISTORY_PAGE_SIZE = 25;

export interface HistoryPage<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

export interface RecentEvent {
  eventId: string;
  name: string;
  level: string | null;
  timestamp: number;
  appId: string;
  platform: Platform;
}

type TimeCursor = [number, string];
const isTimeCursor = (v: unknown): v is TimeCursor => Array.isArray(v) && v.length === 2 && Number.isSafeInteger(v[0]) && typeof v[1] === 'string' && v[1].length > 0 && v[1].length <= 300;

async function newestFirst<D, T>(scope: EnvScope, base: Query<D>, timeField: string, timeOf: (doc: D) => number, shape: (doc: D) => T, cursor: string | null, limit: number): Promise<HistoryPage<T>> {
  let query = base.orderBy(timeField, 'desc').orderBy(FieldPath.documentId(), 'desc');
  if (cursor !== null) query = query.startAfter(...decodeCursor(cursor, isTimeCursor));
  const snapshot = await scope.query(query.limit(limit + 1));
  const docs = snapshot.docs.slice(0, limit);
  const hasMore = snapshot.docs.length > limit;
  const last = docs[docs.length - 1];
  return { data: docs.map((d) => shape(d.data())), hasMore, nextCursor: hasMore && last ? encodeCursor([timeOf(last.data()), last.id]) : null };
}

export function customerAuditPage(scope: EnvScope, customerId: string, cursor: string | null, limit = HISTORY_PAGE_SIZE) {
  return newestFirst<AuditEntry, ReturnType<typeof toPublicAuditEntry>>(scope, auditCollection(scope).where('customerId', '==', customerId), 'processedAt', (e) => e.processedAt, toPublicAuditEntry, cursor, limit);
}

export function customerEventsPage(scope: EnvScope, customerId: string, cursor: string | null, limit = HISTORY_PAGE_SIZE) {
  const shape = (e: StoredEvent): RecentEvent => ({ eventId: e.eventId, name: e.name, level: e.level, timestamp: e.timestamp, appId: e.appId, platform: e.platform });
  return newestFirst<StoredEvent, RecentEvent>(scope, scope.collection(EVENTS).withConverter(storedEventConverter).where('serviceCustomerId', '==', customerId), 'timestamp', (e) => e.timestamp, shape, cursor, limit);
}
