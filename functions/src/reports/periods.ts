import { HOUR } from '../clock';

/**
 * UTC time buckets of the rollups. A rollup records each figure in the hour it belongs to, inside
 * the document of its day (`d20261123`), and figures that need a running total from the start
 * (active subscribers, MRR) also in the documents of their month (`m202611`) and year (`y2026`),
 * so a total "up to day D" is a few year documents, at most 11 month documents and at most 30
 * day documents, whatever the history.
 */
export const hourOf = (ms: number): number => Math.floor(ms / HOUR);

/**
 * The hour an end at `ms` (exclusive: active until just before it) is counted in: the hour of
 * its last active instant. A level at hour h is then exactly what is active at the end of h.
 */
export const endHourOf = (ms: number): number => hourOf(ms - 1);

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

export interface PeriodKeys {
  year: string;
  month: string;
  day: string;
  /** Hour of the day, `00`–`23`. */
  hour: string;
}

/** Keys of the hour with index `hour` (hours since the epoch). */
export function periodKeys(hour: number): PeriodKeys {
  const date = new Date(hour * HOUR);
  const y = pad(date.getUTCFullYear(), 4);
  const m = pad(date.getUTCMonth() + 1, 2);
  const d = pad(date.getUTCDate(), 2);
  return { year: `y${y}`, month: `m${y}${m}`, day: `d${y}${m}${d}`, hour: pad(date.getUTCHours(), 2) };
}
