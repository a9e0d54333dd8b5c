import { FieldPath, type DocumentSnapshot } from 'firebase-admin/firestore';
import type { EnvScope } from '../store/scope';
import { periodKeys } from './periods';
import { dayTotalField } from './rollupWrite';
import { shardDocId } from './shards';

/**
 * Reads the rollup documents (rollupWrite.ts) a report over the hours `[fromHour, toHour]`
 * needs, by id (every shard of every period; a period without figures is a missing document):
 *
 * - the day documents of every day in the range (all shards), by day as day totals except the
 *   last day;
 * - with `runningMetrics`: the running totals before the range's first day, from the year
 *   documents of earlier years (an id-range query: only the years that exist), the month
 *   documents of earlier months of that year and the day documents of earlier days of that
 *   month (at most years + 11 + 30 periods, times shards).
 *
 * Each read fetches only the fields it needs (field masks); all run in parallel (one round trip
 * of latency).
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

export interface WindowOptions {
  /** Shards per period of the collection (model.ts). */
  shards: number;
  /** Metrics whose running total before the window is needed (levels). */
  runningMetrics: readonly string[];
  /** Metrics the report reads. */
  metrics: readonly string[];
  /**
   * `day`: days before the window's last one are read as day totals only (a field mask); the last
   * day (it may hold later hours than the range's end, or scheduled ends) is read hour by hour.
   */
  granularity: 'day' | 'hour';
}

export async function readRollupWindow(scope: EnvScope, collection: string, fromHour: number, toHour: number, options: WindowOptions): Promise<RollupWindow> {
  const from = periodKeys(fromHour);
  const running = options.runningMetrics;
  const byDay = options.granularity === 'day';
  // Documents by id (every shard of every period): one masked getAll per kind of period.
  const refsOf = (periods: string[]) => periods.flatMap((period) => Array.from({ length: options.shards }, (_, s) => scope.doc(collection, shardDocId(period, s))));
  const windowDays = daysBetween(fromHour, toHour);
  const lastDays = byDay ? windowDays.slice(-1) : windowDays;
  const earlierDays = byDay ? windowDays.slice(0, -1) : [];
  const firstOfYear = Date.UTC(Number(from.year.slice(1)), 0, 1) / 3_600_000;
  const firstOfMonth = Date.UTC(Number(from.year.slice(1)), Number(from.month.slice(5)) - 1, 1) / 3_600_000;
  const prefixMonths = running.length === 0 ? [] : monthsBetween(firstOfYear, fromHour);
  const prefixDays = running.length === 0 ? [] : daysBetween(firstOfMonth, fromHour).slice(0, -1);
  const years =
    running.length === 0
      ? Promise.resolve(null)
      : scope.query(scope.collection(collection).orderBy(FieldPath.documentId()).startAt('y').endBefore(from.year).select(...running));
  const [lastSnaps, earlierSnaps, monthSnaps, daySnaps, yearSnaps] = await Promise.all([
    scope.getAllMasked(refsOf(lastDays), options.metrics),
    scope.getAllMasked(refsOf(earlierDays), options.metrics.map(dayTotalField)),
    scope.getAllMasked(refsOf(prefixMonths), running),
    scope.getAllMasked(refsOf(prefixDays), running.map(dayTotalField)),
    years,
  ]);

  const base: Totals = new Map();
  const addBase = (metric: string, series: string, amount: number) => {
    const bySeries = base.get(metric) ?? new Map<string, number>();
    bySeries.set(series, (bySeries.get(series) ?? 0) + amount);
    base.set(metric, bySeries);
  };
  for (const snapshot of [...(yearSnaps?.docs ?? []), ...monthSnaps]) {
    for (const metric of running) {
      for (const [series, amount] of Object.entries((snapshot.get(metric) ?? {}) as Record<string, number>)) addBase(metric, series, amount);
    }
  }
  for (const snapshot of daySnaps) {
    for (const metric of running) {
      for (const [series, amount] of Object.entries((snapshot.get(dayTotalField(metric)) ?? {}) as Record<string, number>)) addBase(metric, series, amount);
    }
  }

  const hourly: HourlyFigures = new Map();
  for (const snapshot of lastSnaps) addDay(hourly, snapshot, options.metrics, null);
  for (const snapshot of earlierSnaps) addDay(hourly, snapshot, options.metrics, 23);
  const documentsRead = lastSnaps.length + earlierSnaps.length + monthSnaps.length + daySnaps.length + (yearSnaps?.size ?? 0);
  return { base, hourly, documentsRead };
}

/** Day keys (`d20261123`) of every day from the day of `fromHour` to that of `toHour`. */
function daysBetween(fromHour: number, toHour: number): string[] {
  const days: string[] = [];
  for (let hour = Math.floor(fromHour / 24) * 24; hour <= toHour; hour += 24) days.push(periodKeys(hour).day);
  return days;
}

/** Month keys of every month from the month of `fromHour` up to, not including, that of `beforeHour`. */
function monthsBetween(fromHour: number, beforeHour: number): string[] {
  const months: string[] = [];
  const end = periodKeys(beforeHour).month;
  const date = new Date(fromHour * 3_600_000);
  for (;;) {
    const key = periodKeys(date.getTime() / 3_600_000).month;
    if (key >= end) return months;
    months.push(key);
    date.setUTCMonth(date.getUTCMonth() + 1);
  }
}

/**
 * `d20261123_2` → its figures added into `hourly` by absolute hour: hour by hour, or (`atHour`
 * set) the day's totals placed at that hour of the day (23: the day's end).
 */
function addDay(hourly: HourlyFigures, snapshot: DocumentSnapshot, metrics: readonly string[], atHour: number | null): void {
  const match = /^d(\d{4})(\d{2})(\d{2})_/.exec(snapshot.id);
  if (!match) return;
  const dayHour = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) / 3_600_000;
  for (const metric of metrics) {
    const bySeries = snapshot.get(atHour === null ? metric : dayTotalField(metric)) as Record<string, Record<string, number> | number> | undefined;
    if (typeof bySeries !== 'object' || bySeries === null) continue;
    const metricMap = hourly.get(metric) ?? new Map<string, Map<number, number>>();
    for (const [series, value] of Object.entries(bySeries)) {
      const seriesMap = metricMap.get(series) ?? new Map<number, number>();
      const entries: [number, number][] = atHour === null ? Object.entries(value as Record<string, number>).map(([h, n]) => [Number(h), n]) : [[atHour, value as number]];
      for (const [hourOfDay, amount] of entries) {
        const hour = dayHour + hourOfDay;
        seriesMap.set(hour, (seriesMap.get(hour) ?? 0) + amount);
      }
      metricMap.set(series, seriesMap);
    }
    hourly.set(metric, metricMap);
  }
}
