import { FieldPath, type DocumentSnapshot } from 'firebase-admin/firestore';
import type { EnvScope } from '../store/scope';
import { periodKeys } from './periods';

/**
 * Reads the rollup documents (rollupWrite.ts) a report over the hours `[fromHour, toHour]`
 * needs, by document-id ranges, so only documents that exist are read:
 *
 * - the day documents of every day in the range (all shards);
 * - with `runningMetrics`: the running totals before the range's first day, from the year
 *   documents of earlier years, the month documents of earlier months of that year and the day
 *   documents of earlier days of that month (at most years + 11 + 30 periods, times shards).
 *
 * The queries run in parallel (one round trip of latency).
 */
export type HourlyFigures = Map<string, Map<string, Map<number, number>>>; // metric → series → hour → n
export type Totals = Map<string, Map<string, number>>; // metric → series → n

export interface RollupWindow {
  /** Running totals of `runningMetrics` before the first day of the window. */
  base: Totals;
  /** Figures of the window's days, summed over shards, by absolute hour. */
  hourly: HourlyFigures;
  documentsRead: number;
}

export async function readRollupWindow(scope: EnvScope, collection: string, fromHour: number, toHour: number, runningMetrics: readonly string[]): Promise<RollupWindow> {
  const from = periodKeys(fromHour);
  const to = periodKeys(toHour);
  const idRange = (start: string, endBefore: string) =>
    scope.query(scope.collection(collection).orderBy(FieldPath.documentId()).startAt(start).endBefore(endBefore));
  const window = idRange(from.day, `${to.day}~`);
  const prefix =
    runningMetrics.length === 0
      ? []
      : [idRange('y', from.year), idRange(`m${from.year.slice(1)}01`, from.month), idRange(`d${from.month.slice(1)}01`, from.day)];
  const [windowDocs, ...prefixDocs] = await Promise.all([window, ...prefix]);

  const base: Totals = new Map();
  const addBase = (metric: string, series: string, amount: number) => {
    const bySeries = base.get(metric) ?? new Map<string, number>();
    bySeries.set(series, (bySeries.get(series) ?? 0) + amount);
    base.set(metric, bySeries);
  };
  const [years, months, days] = prefixDocs;
  for (const snapshot of [...(years?.docs ?? []), ...(months?.docs ?? [])]) {
    for (const metric of runningMetrics) {
      for (const [series, amount] of Object.entries((snapshot.get(metric) ?? {}) as Record<string, number>)) addBase(metric, series, amount);
    }
  }
  for (const snapshot of days?.docs ?? []) {
    for (const metric of runningMetrics) {
      for (const [series, hours] of Object.entries((snapshot.get(metric) ?? {}) as Record<string, Record<string, number>>)) {
        for (const amount of Object.values(hours)) addBase(metric, series, amount);
      }
    }
  }

  const hourly: HourlyFigures = new Map();
  for (const snapshot of windowDocs.docs) addDay(hourly, snapshot);
  const documentsRead = windowDocs.size + prefixDocs.reduce((n, q) => n + q.size, 0);
  return { base, hourly, documentsRead };
}

/** `d20261123_2` → the hours of 2026-11-23 (UTC), added into `hourly`. */
function addDay(hourly: HourlyFigures, snapshot: DocumentSnapshot): void {
  const match = /^d(\d{4})(\d{2})(\d{2})_/.exec(snapshot.id);
  if (!match) return;
  const dayHour = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) / 3_600_000;
  for (const [metric, bySeries] of Object.entries(snapshot.data() ?? {})) {
    if (typeof bySeries !== 'object' || bySeries === null) continue;
    const metricMap = hourly.get(metric) ?? new Map<string, Map<number, number>>();
    for (const [series, hours] of Object.entries(bySeries as Record<string, Record<string, number>>)) {
      const seriesMap = metricMap.get(series) ?? new Map<number, number>();
      for (const [hourKey, amount] of Object.entries(hours)) {
        const hour = dayHour + Number(hourKey);
        seriesMap.set(hour, (seriesMap.get(hour) ?? 0) + amount);
      }
      metricMap.set(series, seriesMap);
    }
    hourly.set(metric, metricMap);
  }
}
