import { FieldPath, type DocumentReference, type DocumentSnapshot } from 'firebase-admin/firestore';
import type { EnvScope } from '../store/scope';
import { ALL_TIME, periodKeys } from '../store/rollups/periods';
import { dayTotalsField, monthTotalsField, yearTotalsField } from '../store/rollups/rollupWrite';
import { shardDocId } from '../store/rollups/shards';

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
 *   before; or, when fewer, the month's total minus its days from the range's first day on).
 *
 * So a report by day reads (1 + months + 2) × shards documents and one by hour (days + 3) ×
 * shards, whatever the history, in as few getAlls as keep every mask exact (`batched`: the days
 * read by hour, one month, the year and the all-time documents share one; another month with
 * other days has its own), all in parallel (one round trip of latency).
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

/**
 * Days whose totals a month document gives: into the window (at the day's last hour), added to
 * the base, or subtracted from it (the base then holds the whole month from the year document).
 */
interface DayTotalsGroup {
  dayHours: number[];
  metrics: readonly string[];
  into: 'window' | 'base' | 'subtract';
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

  // Month documents: the day totals of the window's other days and, for running totals, of the
  // first month's days before the window or (when fewer) from its first day on, subtracted from
  // the month's total in the year document: a 30-day window reads its ~6 days of the first
  // month instead of its ~25 earlier ones.
  const first = periodKeys(windowDays[0]);
  const firstMonth = Number(first.monthOfYear);
  const monthStart = Date.UTC(Number(first.yearNumber), firstMonth - 1, 1) / 3_600_000;
  const nextMonthStart = Date.UTC(Number(first.yearNumber), firstMonth, 1) / 3_600_000;
  const daysBefore = dayStartHours(monthStart, windowDays[0] - 1);
  const daysFrom = dayStartHours(windowDays[0], nextMonthStart - 1);
  const fromMonthTotal = running.length > 0 && daysFrom.length < daysBefore.length;
  const daysByMonth = new Map<string, DayTotalsGroup[]>();
  const addDays = (dayHours: number[], dayMetrics: readonly string[], into: DayTotalsGroup['into']) => {
    for (const dayHour of dayHours) {
      const month = periodKeys(dayHour).month;
      const groups = daysByMonth.get(month) ?? [];
      const group = groups.find((g) => g.into === into);
      if (group) group.dayHours.push(dayHour);
      else groups.push({ dayHours: [dayHour], metrics: dayMetrics, into });
      daysByMonth.set(month, groups);
    }
  };
  if (byDay) addDays(windowDays.slice(0, -1), metrics, 'window');
  if (running.length > 0) {
    if (fromMonthTotal) addDays(daysFrom, running, 'subtract');
    else addDays(daysBefore, running, 'base');
  }
  for (const [month, groups] of daysByMonth) {
    const mask = new Map<string, FieldPath>();
    for (const g of groups) {
      for (const dayHour of g.dayHours) for (const m of g.metrics) mask.set(`${m}\n${periodKeys(dayHour).dayOfMonth}`, new FieldPath(dayTotalsField(m), periodKeys(dayHour).dayOfMonth));
    }
    reads.push({
      refs: refsOf(month),
      mask: [...mask.values()],
      apply: (snap) => {
        for (const group of groups) {
          for (const dayHour of group.dayHours) {
            const dayKey = periodKeys(dayHour).dayOfMonth;
            for (const metric of group.metrics) {
              const bySeries: unknown = snap.get(new FieldPath(dayTotalsField(metric), dayKey));
              if (group.into === 'window') addAt(hourly, metric, bySeries, dayHour + 23);
              else addTotals(base, metric, bySeries, group.into === 'subtract' ? -1 : 1);
            }
          }
        }
      },
    });
  }

  // Running totals before the first day's month (or through it, when its later days are
  // subtracted): its year's months, and earlier years.
  if (running.length > 0) {
    const monthCount = fromMonthTotal ? firstMonth : firstMonth - 1;
    const months = Array.from({ length: monthCount }, (_, i) => String(i + 1).padStart(2, '0'));
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

  const batches = batched(reads);
  const results = await Promise.all(batches.map((batch) => scope.getAllMasked(batch.refs, batch.mask)));
  let documentsRead = 0;
  results.forEach((snapshots, b) => {
    documentsRead += snapshots.length;
    for (const { read, offset } of batches[b].members) read.refs.forEach((_, index) => read.apply(snapshots[offset + index], index));
  });
  return { base, hourly, documentsRead };
}

/** Masked reads sharing one `getAll`: their documents in order, the union of their masks. */
interface ReadBatch {
  refs: DocumentReference[];
  mask: FieldPath[];
  members: { read: PeriodRead; offset: number }[];
  /** Mask per kind of document (`d`, `m`, `y`, `all`), as text. */
  kinds: Map<string, string>;
}

/**
 * Groups the reads into as few `getAll`s as keep every document's mask exact: a day, month,
 * year and all-time document hold different fields (`metric`, `metric_days`, `metric_months`,
 * `metric_years`), so one of each kind shares a call with the union of their masks; another read
 * of a kind already in a call joins it only with the same mask (a second month with other days
 * would otherwise decode days it does not use). A 30-day report by day: 2 calls instead of 5.
 */
function batched(reads: readonly PeriodRead[]): ReadBatch[] {
  const batches: ReadBatch[] = [];
  for (const read of reads) {
    const kind = /^(all|[dmy])/.exec(read.refs[0]?.id ?? '')?.[1] ?? read.refs[0]?.id ?? '';
    const maskText = read.mask.map((path) => path.toString()).join('\n');
    let batch = batches.find((b) => (b.kinds.get(kind) ?? maskText) === maskText);
    if (!batch) batches.push((batch = { refs: [], mask: [], members: [], kinds: new Map() }));
    batch.members.push({ read, offset: batch.refs.length });
    batch.refs.push(...read.refs);
    if (!batch.kinds.has(kind)) batch.mask.push(...read.mask);
    batch.kinds.set(kind, maskText);
  }
  return batches;
}

/** The first hour of every day from the day of `fromHour` to that of `toHour` (none when `toHour` is earlier). */
function dayStartHours(fromHour: number, toHour: number): number[] {
  const days: number[] = [];
  for (let hour = Math.floor(fromHour / 24) * 24; hour <= toHour; hour += 24) days.push(hour);
  return days;
}

const isAmount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** `{series: n}` (one period's totals) added into `base` (`sign` −1: subtracted). */
function addTotals(base: Totals, metric: string, bySeries: unknown, sign: 1 | -1 = 1): void {
  if (typeof bySeries !== 'object' || bySeries === null) return;
  const totals = base.get(metric) ?? new Map<string, number>();
  for (const [series, amount] of Object.entries(bySeries)) if (isAmount(amount)) totals.set(series, (totals.get(series) ?? 0) + sign * amount);
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
