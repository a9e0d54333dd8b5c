import { hourOf } from '../store/rollups/periods';
import { periodStarts, type ReportRange } from './range';

/**
 * Turning hourly rollup figures into a report's periods. A flow (events, money) sums the hours
 * of each period; a level (active subscribers, MRR) is its running total at the period's last
 * hour (the current hour for the period holding `to`).
 */
export function sumsPerPeriod(hourly: ReadonlyMap<number, number> | undefined, range: ReportRange): { t: number; value: number }[] {
  const starts = periodStarts(range);
  const values = new Array<number>(starts.length).fill(0);
  if (hourly) {
    // One pass over the hours (each lands in its period by index), not one per period: a week
    // by hour is 168 periods over ~190 hours per series.
    const firstHour = hourOf(starts[0]);
    const lastHour = hourOf(range.to);
    const hoursPerPeriod = range.granularity === 'day' ? 24 : 1;
    for (const [hour, amount] of hourly) {
      if (hour < firstHour || hour > lastHour) continue;
      const index = Math.floor((hour - firstHour) / hoursPerPeriod);
      if (index < values.length) values[index] += amount;
    }
  }
  return starts.map((t, i) => ({ t, value: values[i] }));
}

/**
 * `base`: the running total before the window's first day; `hourly` holds every hour of the
 * window's days (from the first day's hour 0), so hours before the range's first period are
 * still added to the running total.
 */
export function levelsPerPeriod(base: number, hourly: ReadonlyMap<number, number> | undefined, range: ReportRange): { t: number; value: number }[] {
  const entries = [...(hourly ?? new Map<number, number>())].sort((a, b) => a[0] - b[0]);
  const starts = periodStarts(range);
  // Period i's last hour, clipped to the range's last hour, by index.
  const firstHour = hourOf(starts[0]);
  const lastHour = hourOf(range.to);
  const hoursPerPeriod = range.granularity === 'day' ? 24 : 1;
  let total = base;
  let next = 0;
  return starts.map((t, i) => {
    const last = Math.min(firstHour + (i + 1) * hoursPerPeriod - 1, lastHour);
    while (next < entries.length && entries[next][0] <= last) total += entries[next++][1];
    return { t, value: total };
  });
}

/** The running total at `hour`, from a window read for exactly that hour. */
export function levelAt(base: number, hourly: ReadonlyMap<number, number> | undefined, hour: number): number {
  let total = base;
  if (hourly) for (const [h, amount] of hourly) if (h <= hour) total += amount;
  return total;
}

/**
 * The rows of every series, period by period: ordered by `t`, then by `compare` between series.
 * The same order as sorting every row by (`t`, `compare`), with only the series sorted (40 of
 * them, where a week by hour has 6,720 rows).
 */
export function rowsByPeriod<Series, Row>(starts: readonly number[], series: Series[], compare: (a: Series, b: Series) => number, row: (t: number, of: Series, index: number) => Row): Row[] {
  const ordered = [...series].sort(compare);
  const rows: Row[] = [];
  starts.forEach((t, index) => {
    for (const of of ordered) rows.push(row(t, of, index));
  });
  return rows;
}
