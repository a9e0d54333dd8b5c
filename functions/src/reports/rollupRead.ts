import { FieldPath, type DocumentSnapshot } from 'firebase-admin/firestore';
import type { EnvScope } from '../store/scope';
import { periodKeys } from './periods';
import { dayTotalField } from './rollupWrite';

/**
 * Reads the rollup documents (rollupWrite.ts) a report over the hours `[fromHour, toHour]`
 * needs, by document-id ranges, so only documents that exist are read:
 *
 * - the day documents of every day in the range (all shards), by day as day totals except the
 *   last day;
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

export interface WindowOptions {
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
  const to = periodKeys(toHour);
  const idRange = (start: string, endBefore: string, fields: readonly string[]) => {
    let query = scope.collection(collection).orderBy(FieldPath.documentId()).startAt(start).endBefore(endBefore);
    if (fields.length > 0) query = query.select(...fields);
    return start < endBefore ? scope.query(query) : Promise.resolve(null);
  };
  const hourFields = [...options.metrics];
  const dayFields = options.metrics.map(dayTotalField);
  const running = options.runningMetrics;
  const byDay = options.granularity === 'day';
  const queries = [
    idRange(byDay ? to.day : from.day, `${to.day}~`, hourFields),
    byDay ? idRange(from.day, to.day, dayFields) : Promise.resolve(null),
    ...(running.length === 0
      ? []
      : [
          idRange('y', from.year, running),
          idRange(`m${from.year.slice(1)}01`, from.month, running),
          idRange(`d${from.month.slice(1)}01`, from.day, running.map(dayTotalField)),
        ]),
  ];
  const [lastDays, earlierDays, years, months, prefixDays] = await Promise.all(queries);

  const base: Totals = new Map();
  const addBase = (metric: string, series: string, amount: number) => {
    const bySeries = base.get(metric) ?? new Map<string, number>();
    bySeries.set(series, (bySeries.get(series) ?? 0) + amount);
    base.set(metric, bySeries);
  };
  for (const snapshot of [...(years?.docs ?? []), ...(months?.docs ?? [])]) {
    for (const metric of running) {
      for (const [series, amount] of Object.entries((snapshot.get(metric) ?? {}) as Record<string, number>)) addBase(metric, series, amount);
    }
  }
  for (const snapshot of prefixDays?.docs ?? []) {
    for (const metric of running) {
      for (const [series, amount] of Object.entries((snapshot.get(dayTotalField(metric)) ?? {}) as Record<string, number>)) addBase(metric, series, amount);
    }
  }

  const hourly: HourlyFigures = new Map();
  for (const snapshot of lastDays?.docs ?? []) addDay(hourly, snapshot, options.metrics, null);
  for (const snapshot of earlierDays?.docs ?? []) addDay(hourly, snapshot, options.metrics, 23);
  const documentsRead = queries.length === 0 ? 0 : [lastDays, earlierDays, years, months, prefixDays].reduce((n, q) => n + (q?.size ?? 0), 0);
  return { base, hourly, documentsRead };
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
