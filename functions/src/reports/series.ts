import { periodHours, periodStarts, type ReportRange } from './range';

/**
 * Turning hourly rollup figures into a report's periods. A flow (events, money) sums the hours
 * of each period; a level (active subscribers, MRR) is its running total at the period's last
 * hour (the current hour for the period holding `to`).
 */
export function sumsPerPeriod(hourly: ReadonlyMap<number, number> | undefined, range: ReportRange): { t: number; value: number }[] {
  return periodStarts(range).map((t) => {
    const { first, last } = periodHours(t, range);
    let value = 0;
    if (hourly) for (const [hour, amount] of hourly) if (hour >= first && hour <= last) value += amount;
    return { t, value };
  });
}

/**
 * `base`: the running total before the window's first day; `hourly` holds every hour of the
 * window's days (from the first day's hour 0), so hours before the range's first period are
 * still added to the running total.
 */
export function levelsPerPeriod(base: number, hourly: ReadonlyMap<number, number> | undefined, range: ReportRange): { t: number; value: number }[] {
  const entries = [...(hourly ?? new Map<number, number>())].sort((a, b) => a[0] - b[0]);
  let total = base;
  let next = 0;
  return periodStarts(range).map((t) => {
    const { last } = periodHours(t, range);
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
