import { FieldPath, type DocumentReference, type DocumentSnapshot } from 'firebase-admin/firestore';
import type { EnvScope } from '../store/scope';
import { ALL_TIME, periodKeys } from './periods';
import { dayTotalsField, monthTotalsField, yearTotalsField } from './rollupWrite';
import { shardDocId } from './shards';

/**
 * Reads the rollup documents (rollupWrite.ts) a report over the hours `[fromHour, toHour]`
 * needs, by id (every shard of every period; a period without figures is a missing document),
 * each through a field mask of exactly the periods it contributes:
 *
 * - hour by hour, the day documents of the range's last day (`day`) or of every day (`hour`);
 * - by day, the other days of the range as day totals from their month documents (a 30-day
 *   range touches at most two months);
 * - with `runningMetrics`: the running totals before the range's first day, from the all-time
 *   document (years before), the year document (months before) and the month document (days
 *   before).
 *
 * So a report by day reads (1 + months + 2) × shards documents and one by hour (days + 3) ×
 * shards, whatever the history: one getAll for the days read by hour, one per month, one for the
 * year and one for the all-time documents, all in parallel (one round trip of latency).
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
   * `day`: days before the window's last one are read as day totals (month documents); the last
   * day (it may hold later hours than the range's end, or scheduled ends) is read hour by hour.
   */
  granularity: 'day' | 'hour';
}

/** Days whose totals a month document gives: into the window (at the day's last hour) or into the base. */
interface DayTotalsGroup {
  dayHours: number[];
  metrics: readonly string[];
  toBase: boolean;
}

/** A masked read of one period's shards, and what to do with each snapshot it returns. */
interface PeriodRead {
  refs: DocumentReference[];
  mask: FieldPath[];
  /** `index`: the snapshot's position in `refs`. */
  apply: (snapshot: DocumentSnapshot, index: number) => void;
}

export async function readRollupWindow(scope: EnvScope, collection: string, fromHour: number, toHour: number, options: WindowOptions): Promise<RollupWindow> {
  const { metrics, runningMetrics: running } = options;
  const refsOf = (period: string) => Array.from({ length: options.shards }, (_, s) => scope.doc(collection, shardDocId(period, s)));
  const base: Totals = new Map();
  const hourly: HourlyFigures = new Map();
  const reads: PeriodRead[] = [];

  const windowDays = dayStartHours(Math.floor(fromHour / 24) * 24, toHour);
  const byDay = options.granularity === 'day';
  const hourByHour = byDay ? windowDays.slice(-1) : windowDays;
  // Every day read hour by hour takes the same mask: one getAll for all of them.
  const hourDays = hourByHour.flatMap((dayHour) => refsOf(periodKeys(dayHour).day).map((ref) => ({ ref, dayHour })));
  reads.push({ refs: hourDays.map((d) => d.ref), mask: metrics.map((m) => new FieldPath(m)), apply: (snap, i) => addHours(hourly, snap, metrics, hourDays[i].dayHour) });

  // Month documents: the day totals of the window's other days, and of the days before it (running).
  const first = periodKeys(windowDays[0]);
  const monthStart = Date.UTC(Number(first.yearNumber), Number(first.monthOfYear) - 1, 1) / 3_600_000;
  const daysByMonth = new Map<string, DayTotalsGroup[]>();
  const addDays = (dayHours: number[], dayMetrics: readonly string[], toBase: boolean) => {
    for (const dayHour of dayHours) {
      const month = periodKeys(dayHour).month;
      const groups = daysByMonth.get(month) ?? [];
      const group = groups.find((g) => g.toBase === toBase);
      if (group) group.dayHours.push(dayHour);
      else groups.push({ dayHours: [dayHour], metrics: dayMetrics, toBase });
      daysByMonth.set(month, groups);
    }
  };
  if (byDay) addDays(windowDays.slice(0, -1), metrics, false);
  if (running.length > 0) addDays(dayStartHours(monthStart, windowDays[0] - 1), running, true);
  for (const [month, groups] of daysByMonth) {
    reads.push({
      refs: refsOf(month),
      mask: groups.flatMap((g) => g.dayHours.flatMap((dayHour) => g.metrics.map((m) => new FieldPath(dayTotalsField(m), periodKeys(dayHour).dayOfMonth)))),
      apply: (snap) => {
        for (const group of groups) {
          for (const dayHour of group.dayHours) {
            const dayKey = periodKeys(dayHour).dayOfMonth;
            for (const metric of group.metrics) {
              const bySeries: unknown = snap.get(new FieldPath(dayTotalsField(metric), dayKey));
              if (group.toBase) addTotals(base, metric, bySeries);
              else addAt(hourly, metric, bySeries, dayHour + 23);
            }
          }
        }
      },
    });
  }

  // Running totals before the first day's month: its year's earlier months, and earlier years.
  if (running.length > 0) {
    const months = Array.from({ length: Number(first.monthOfYear) - 1 }, (_, i) => String(i + 1).padStart(2, '0'));
    if (months.length > 0) {
      reads.push({
        refs: refsOf(first.year),
        mask: months.flatMap((mm) => running.map((m) => new FieldPath(monthTotalsField(m), mm))),
        apply: (snap) => {
          for (const metric of running) for (const mm of months) addTotals(base, metric, snap.get(new FieldPath(monthTotalsField(metric), mm)));
        },
      });
    }
    reads.push({
      refs: refsOf(ALL_TIME),
      mask: running.map((m) => new FieldPath(yearTotalsField(m))),
      apply: (snap) => {
        for (const metric of running) {
          const byYear = (snap.get(yearTotalsField(metric)) ?? {}) as Record<string, unknown>;
          for (const [year, bySeries] of Object.entries(byYear)) if (year < first.yearNumber) addTotals(base, metric, bySeries);
        }
      },
    });
  }

  const results = await Promise.all(reads.map((read) => scope.getAllMasked(read.refs, read.mask)));
  let documentsRead = 0;
  results.forEach((snapshots, i) => {
    documentsRead += snapshots.length;
    snapshots.forEach((snapshot, index) => reads[i].apply(snapshot, index));
  });
  return { base, hourly, documentsRead };
}

/** The first hour of every day from the day of `fromHour` to that of `toHour` (none when `toHour` is earlier). */
function dayStartHours(fromHour: number, toHour: number): number[] {
  const days: number[] = [];
  for (let hour = Math.floor(fromHour / 24) * 24; hour <= toHour; hour += 24) days.push(hour);
  return days;
}

const isAmount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** `{series: n}` (one period's totals) added into `base`. */
function addTotals(base: Totals, metric: string, bySeries: unknown): void {
  if (typeof bySeries !== 'object' || bySeries === null) return;
  const totals = base.get(metric) ?? new Map<string, number>();
  for (const [series, amount] of Object.entries(bySeries)) if (isAmount(amount)) totals.set(series, (totals.get(series) ?? 0) + amount);
  base.set(metric, totals);
}

/** `{series: n}` (a day's totals) placed at `hour` (the day's last hour) in `hourly`. */
function addAt(hourly: HourlyFigures, metric: string, bySeries: unknown, hour: number): void {
  if (typeof bySeries !== 'object' || bySeries === null) return;
  const metricMap = hourly.get(metric) ?? new Map<string, Map<number, number>>();
  for (const [series, amount] of Object.entries(bySeries)) {
    if (!isAmount(amount)) continue;
    const seriesMap = metricMap.get(series) ?? new Map<number, number>();
    seriesMap.set(hour, (seriesMap.get(hour) ?? 0) + amount);
    metricMap.set(series, seriesMap);
  }
  hourly.set(metric, metricMap);
}

/** A day document's `{metric: {series: {HH: n}}}` added into `hourly` by absolute hour. */
function addHours(hourly: HourlyFigures, snapshot: DocumentSnapshot, metrics: readonly string[], dayHour: number): void {
  for (const metric of metrics) {
    const bySeries = snapshot.get(metric) as unknown;
    if (typeof bySeries !== 'object' || bySeries === null) continue;
    const metricMap = hourly.get(metric) ?? new Map<string, Map<number, number>>();
    for (const [series, hours] of Object.entries(bySeries)) {
      if (typeof hours !== 'object' || hours === null) continue;
      const seriesMap = metricMap.get(series) ?? new Map<number, number>();
      for (const [hh, amount] of Object.entries(hours)) {
        const hour = dayHour + Number(hh);
        if (isAmount(amount)) seriesMap.set(hour, (seriesMap.get(hour) ?? 0) + amount);
      }
      metricMap.set(series, seriesMap);
    }
    hourly.set(metric, metricMap);
  }
}
