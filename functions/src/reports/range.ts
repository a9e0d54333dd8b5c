import { DAY, HOUR } from '../clock';
import { DomainError } from '../errors/domain';
import { hourOf } from '../store/rollups/periods';
import type { RangeQuery } from '../wire/reports';

/**
 * The time window of a report: `from` and `to` (Unix ms, default the last 30 days up to now)
 * and `granularity` (`day`, default, or `hour`). A window covers whole UTC periods: the period
 * holding `from` through the period holding `to`; `to` is never later than now. At most
 * MAX_PERIODS periods, so a report reads a bounded number of day documents.
 */
export type Granularity = 'day' | 'hour';

export interface ReportRange {
  from: number;
  to: number;
  granularity: Granularity;
}

export const DEFAULT_WINDOW_MS = 30 * DAY;
export const MAX_PERIODS: Record<Granularity, number> = { day: 366, hour: 744 };
const PERIOD_MS: Record<Granularity, number> = { day: DAY, hour: HOUR };

/** Typed range from the validated query, or DomainError `invalid_argument` (a 400). */
export function parseRange(query: RangeQuery, now: number): ReportRange {
  const to = query.to === undefined ? now : Math.min(Number(query.to), now);
  const from = query.from === undefined ? to - DEFAULT_WINDOW_MS : Number(query.from);
  return checkRange({ from, to, granularity: query.granularity ?? 'day' }, now);
}

/** Checks a range given by a caller (the dashboard calls services with typed ranges). */
export function checkRange(range: ReportRange, now: number): ReportRange {
  const to = Math.min(range.to, now);
  if (!Number.isSafeInteger(range.from) || !Number.isSafeInteger(to) || range.from < 0) {
    throw new DomainError('invalid_argument', 'Invalid value for `from`/`to`: Unix milliseconds expected.');
  }
  if (range.from > to) throw new DomainError('invalid_argument', 'Invalid value for `from`: it must not be later than `to` (or now).');
  const periods = periodStarts({ ...range, to }).length;
  if (periods > MAX_PERIODS[range.granularity]) {
    throw new DomainError('invalid_argument', `Invalid value for \`from\`: at most ${MAX_PERIODS[range.granularity]} ${range.granularity} periods per report.`);
  }
  return { from: range.from, to, granularity: range.granularity };
}

/** Start (Unix ms) of every period of the range. */
export function periodStarts(range: ReportRange): number[] {
  const size = PERIOD_MS[range.granularity];
  const first = Math.floor(range.from / size) * size;
  const starts: number[] = [];
  for (let t = first; t <= range.to && starts.length <= MAX_PERIODS[range.granularity]; t += size) starts.push(t);
  return starts;
}

/** The hours the whole range spans. */
export function rangeHours(range: ReportRange): { first: number; last: number } {
  const starts = periodStarts(range);
  return { first: hourOf(starts[0]), last: hourOf(range.to) };
}
