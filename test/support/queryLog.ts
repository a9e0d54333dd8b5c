import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IndexConfig } from './indexEntries';
import { planQuery, type PlannedQuery } from './indexPlanner';

/** The run directory (globalSetup.ts creates it) where each worker appends the service's query shapes (queryRecorder.ts). */
export const QUERY_LOG_DIR_VARIABLE = 'TESSERA_QUERY_LOG_DIR';

/** One recorded query: its conjunctive shapes (one per OR disjunct), the service frames that issued it, the test that led there. */
export interface RecordedQuery {
  shapes: PlannedQuery[];
  caller: string;
  test: string | null;
}

export function readRecordedQueries(directory: string): RecordedQuery[] {
  const queries: RecordedQuery[] = [];
  for (const name of readdirSync(directory).filter((n) => n.endsWith('.jsonl'))) {
    for (const line of readFileSync(join(directory, name), 'utf8').split('\n')) if (line) queries.push(JSON.parse(line) as RecordedQuery);
  }
  return queries;
}

const describeShape = (q: PlannedQuery): string => {
  const filters = q.filters.map((f) => `${f.field} ${f.op}`).join(', ');
  const orders = q.orderBy.map((o) => `${o.field} ${o.direction}`).join(', ');
  const aggregations = q.aggregations?.map((a) => (a.kind === 'count' ? 'count()' : `${a.kind}(${a.field})`)).join(', ');
  return `${q.collectionGroupQuery ? 'collectionGroup' : 'collection'} ${q.collectionGroup}${filters ? ` where ${filters}` : ''}${orders ? ` orderBy ${orders}` : ''}${aggregations ? ` aggregate ${aggregations}` : ''}`;
};

/** Every recorded query the indexes cannot serve, once per shape and caller, as readable lines. */
export function refusedQueries(queries: readonly RecordedQuery[], config: IndexConfig): string[] {
  const refusals = new Map<string, string>();
  for (const query of queries) {
    for (const shape of query.shapes) {
      const verdict = planQuery(shape, config);
      if (verdict.served) continue;
      const key = `${describeShape(shape)} @ ${query.caller}`;
      if (!refusals.has(key)) refusals.set(key, `${describeShape(shape)}\n    issued by ${query.caller}${query.test ? ` (test ${query.test})` : ''}\n    ${verdict.reason}`);
    }
  }
  return [...refusals.values()];
}
