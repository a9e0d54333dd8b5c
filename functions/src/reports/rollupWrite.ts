import { FieldValue, type DocumentReference, type SetOptions } from 'firebase-admin/firestore';
import type { EnvScope } from '../store/scope';
import { periodKeys } from './periods';
import { shardDocId } from './shards';

/**
 * The one way rollup documents are written: increments (never read first), added to the
 * caller's own transaction or batch, so a rollup changes exactly when the data it counts does.
 *
 * A day document holds hourly figures, `{metric: {series: {HH: n}}}`, and the day's totals,
 * `{metric_day: {series: n}}` (what a report by day or a running total reads, through a field
 * mask, instead of every hour). A figure marked
 * `running` (a level that persists until a later delta undoes it: active subscribers, MRR) is
 * also added to its month and year documents (`{metric: {series: n}}`), from which a reader
 * rebuilds the total before any day in a bounded number of reads (rollupRead.ts).
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

/** The field of a day document holding the day's totals of `metric`. */
export const dayTotalField = (metric: string): string => `${metric}_day`;

/** Map keys of a series (`["pro","stripe"]`): any text, never a reserved `__x__` name. */
export const seriesKey = (...parts: string[]): string => JSON.stringify(parts);
export const seriesParts = (key: string): string[] => JSON.parse(key) as string[];

export function writeRollupDeltas(writer: SetWriter, scope: EnvScope, collection: string, shard: number, deltas: readonly RollupDelta[]): void {
  const docs = new Map<string, Record<string, Record<string, Record<string, number> | number>>>();
  const add = (docId: string, metric: string, series: string, hourKey: string | null, amount: number) => {
    const doc = docs.get(docId) ?? {};
    const bySeries = (doc[metric] ??= {});
    if (hourKey === null) bySeries[series] = ((bySeries[series] as number | undefined) ?? 0) + amount;
    else {
      const hours = (bySeries[series] ??= {}) as Record<string, number>;
      hours[hourKey] = (hours[hourKey] ?? 0) + amount;
    }
    docs.set(docId, doc);
  };
  for (const delta of deltas) {
    if (delta.amount === 0) continue;
    const keys = periodKeys(delta.hour);
    add(keys.day, delta.metric, delta.series, keys.hour, delta.amount);
    add(keys.day, dayTotalField(delta.metric), delta.series, null, delta.amount);
    if (delta.running) {
      add(keys.month, delta.metric, delta.series, null, delta.amount);
      add(keys.year, delta.metric, delta.series, null, delta.amount);
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
