import { HOUR } from '../../clock';

/**
 * UTC time buckets of the rollups. A rollup records each figure in the hour it belongs to, inside
 * the document of its day (`d20261123`), and the day's total in the document of its month
 * (`m202611`); figures that need a running total from the start (active subscribers, MRR) also
 * keep the month's total in the year's document (`y2026`) and the year's in one all-time document
 * (`all`), so a total "up to day D" is one all-time, one year and one month document, whatever
 * the history (rollupWrite.ts).
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
  /** Day of the month, `01`–`31` (its key in the month document). */
  dayOfMonth: string;
  /** Month of the year, `01`–`12` (its key in the year document). */
  monthOfYear: string;
  /** The year, `2026` (its key in the all-time document). */
  yearNumber: string;
}

/** The all-time document's period (one per shard). */
export const ALL_TIME = 'all';

/** Keys of the hour with index `hour` (hours since the epoch). */
export function periodKeys(hour: number): PeriodKeys {
  const date = new Date(hour * HOUR);
  const y = pad(date.getUTCFullYear(), 4);
  const m = pad(date.getUTCMonth() + 1, 2);
  const d = pad(date.getUTCDate(), 2);
  return { year: `y${y}`, month: `m${y}${m}`, day: `d${y}${m}${d}`, hour: pad(date.getUTCHours(), 2), dayOfMonth: d, monthOfYear: m, yearNumber: y };
}
