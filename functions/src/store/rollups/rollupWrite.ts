import { FieldValue, type DocumentReference, type SetOptions } from 'firebase-admin/firestore';
import type { EnvScope } from '../scope';
import { ALL_TIME, periodKeys } from './periods';
import { shardDocId } from './shards';

/**
 * The one way rollup documents are written: increments (never read first), added to the
 * caller's own transaction or batch, so a rollup changes exactly when the data it counts does.
 *
 * Each level of period keeps the totals of the level below it, keyed by period first, so a
 * reader's field mask selects exactly the periods it needs (rollupRead.ts):
 *
 * - day `d20261123_s`: `{metric: {series: {HH: n}}}`, the hours (read whole: the last day of a
 *   range, and every day of a report by hour);
 * - month `m202611_s`: `{metric_days: {DD: {series: n}}}`, each day's total (a report by day reads
 *   a month of days in one document instead of one document per day);
 * - for a figure marked `running` (a level that persists until a later delta undoes it: active
 *   subscribers, MRR), also year `y2026_s`: `{metric_months: {MM: {series: n}}}` and all-time
 *   `all_s`: `{metric_years: {YYYY: {series: n}}}`, so the total before any day is three
 *   documents per shard whatever the history.
 *
 * Every write to a month, year or all-time document rides in a commit that also writes a day
 * document of the same shard, so they take no more writes per second than the day documents.
 */
export interface RollupDelta {
  metric: string;
  /** Encoded with `seriesKey`. */
  series: string;
  /** Hours since the epoch (periods.ts). */
  hour: number;
  amount: number;
  running: boolean;
}

/** Anything with Firestore's `set(ref, data, {merge})`: a Transaction or a WriteBatch. */
export interface SetWriter {
  set(ref: DocumentReference, data: Record<string, unknown>, options: SetOptions): unknown;
}

/** Fields of the coarser documents: a month's day totals, a year's month totals, all-time year totals. */
export const dayTotalsField = (metric: string): string => `${metric}_days`;
export const monthTotalsField = (metric: string): string => `${metric}_months`;
export const yearTotalsField = (metric: string): string => `${metric}_years`;

/** Map keys of a series (`["pro","stripe"]`): any text, never a reserved `__x__` name. */
export const seriesKey = (...parts: string[]): string => JSON.stringify(parts);
export const seriesParts = (key: string): string[] => JSON.parse(key) as string[];

type Nested = { [key: string]: Nested | number };

export function writeRollupDeltas(writer: SetWriter, scope: EnvScope, collection: string, shard: number, deltas: readonly RollupDelta[]): void {
  const docs = new Map<string, Nested>();
  const add = (docId: string, path: readonly string[], amount: number) => {
    let node = docs.get(docId);
    if (!node) docs.set(docId, (node = {}));
    for (const key of path.slice(0, -1)) node = (node[key] ??= {}) as Nested;
    const leaf = path[path.length - 1];
    node[leaf] = ((node[leaf] as number | undefined) ?? 0) + amount;
  };
  for (const delta of deltas) {
    if (delta.amount === 0) continue;
    const keys = periodKeys(delta.hour);
    add(keys.day, [delta.metric, delta.series, keys.hour], delta.amount);
    add(keys.month, [dayTotalsField(delta.metric), keys.dayOfMonth, delta.series], delta.amount);
    if (delta.running) {
      add(keys.year, [monthTotalsField(delta.metric), keys.monthOfYear, delta.series], delta.amount);
      add(ALL_TIME, [yearTotalsField(delta.metric), keys.yearNumber, delta.series], delta.amount);
    }
  }
  for (const [period, doc] of docs) {
    const data = increments(doc);
    if (Object.keys(data).length === 0) continue;
    writer.set(scope.doc(collection, shardDocId(period, shard)), data, { merge: true });
  }
}

/** Every number of a nested object as a FieldValue.increment (zero sums are left out). */
function increments(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (typeof inner === 'number') {
      if (inner !== 0) out[key] = FieldValue.increment(inner);
    } else {
      const nested = increments(inner as Record<string, unknown>);
      if (Object.keys(nested).length > 0) out[key] = nested;
    }
  }
  return out;
}
