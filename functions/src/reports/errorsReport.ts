import { FieldPath, type QueryDocumentSnapshot } from 'firebase-admin/firestore';
import { toWireEnv } from '../store/env';
import type { EnvScope } from '../store/scope';
import { checkPageSize, decodeCursor, encodeCursor } from './cursor';
import { type ErrorGroupDoc, errorGroupsCollection, type ErrorGroupShard, errorGroupShardRef, GROUP_SHARDS } from '../store/rollups/errorGroupModel';
import { ERROR_FINGERPRINT } from '../ids';
import type { ErrorGroupSummary, ErrorsReport } from '../wire/reports';



export interface ErrorsPageInput {
  /** Groups last seen in this window (Unix ms, inclusive). */
  from: number;
  to: number;
  cursor: string | null;
  limit: number;
}

interface GroupCursor {
  l: number;
  f: string;
}
const isGroupCursor = (v: unknown): v is GroupCursor =>
  typeof v === 'object' && v !== null && Number.isSafeInteger((v as GroupCursor).l) && ERROR_FINGERPRINT.is((v as GroupCursor).f);

/**
 * `GET /v1/reports/errors`, as a service: error groups last seen in the window, newest first
 * (`lastSeen`, then fingerprint), a page at a time. Reads the page's group documents (limit + 1,
 * one query) and their count shards (limit × GROUP_SHARDS, one getAll), whatever the number of
 * error events.
 */
export async function errorsReport(scope: EnvScope, input: ErrorsPageInput): Promise<ErrorsReport> {
  const limit = checkPageSize(input.limit);
  let query = errorGroupsCollection(scope)
    .where('lastSeen', '>=', input.from)
    .where('lastSeen', '<=', input.to)
    .orderBy('lastSeen', 'desc')
    .orderBy(FieldPath.documentId(), 'desc');
  if (input.cursor) {
    const after = decodeCursor(input.cursor, isGroupCursor);
    query = query.startAfter(after.l, after.f);
  }
  const page = await scope.query(query.limit(limit + 1));
  const groups = page.docs.slice(0, limit);
  const data = await withCounts(scope, groups);
  const hasMore = page.size > limit;
  const last = groups[groups.length - 1];
  return {
    object: 'list',
    data,
    hasMore,
    nextCursor: hasMore && last ? encodeCursor({ l: last.data().lastSeen, f: last.id } satisfies GroupCursor) : null,
    env: toWireEnv(scope.env),
  };
}

/** The groups' summaries with their counts summed over shards (one getAll). */
async function withCounts(scope: EnvScope, groups: readonly QueryDocumentSnapshot<ErrorGroupDoc>[]): Promise<ErrorGroupSummary[]> {
  const shardRefs = groups.flatMap((g) => Array.from({ length: GROUP_SHARDS }, (_, s) => errorGroupShardRef(scope, g.id, s)));
  const shards = shardRefs.length > 0 ? await scope.getAll(...shardRefs) : [];
  return groups.map((group, i) => {
    const counts = shards.slice(i * GROUP_SHARDS, (i + 1) * GROUP_SHARDS).map((s) => (s.data() ?? null));
    return summaryOf(group.data(), counts);
  });
}

export function summaryOf(doc: ErrorGroupDoc, shards: readonly (ErrorGroupShard | null)[]): ErrorGroupSummary {
  return {
    object: 'error_group',
    fingerprint: doc.fingerprint,
    name: doc.name,
    type: doc.type,
    message: doc.message,
    level: doc.level,
    count: shards.reduce((n, s) => n + (s?.count ?? 0), 0),
    customers: shards.reduce((n, s) => n + (s?.customers ?? 0), 0),
    firstSeen: doc.firstSeen,
    lastSeen: doc.lastSeen,
    lastRelease: doc.lastRelease,
  };
}
