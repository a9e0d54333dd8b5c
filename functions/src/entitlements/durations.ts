import { DAY } from '../clock';

/** Manual grant durations (ISO 8601 periods, plus `lifetime`). */
export const GRANT_DURATIONS = ['P30D', 'P90D', 'P1Y', 'lifetime'] as const;
export type GrantDuration = (typeof GRANT_DURATIONS)[number];

/** End of a grant starting at `now` (Unix ms); null is lifetime. `P1Y` is one calendar year (UTC). */
export function grantEnd(duration: GrantDuration, now: number): number | null {
  switch (duration) {
    case 'P30D':
      return now + 30 * DAY;
    case 'P90D':
      return now + 90 * DAY;
    case 'P1Y': {
      const end = new Date(now);
      end.setUTCFullYear(end.getUTCFullYear() + 1);
      return end.getTime();
    }
    case 'lifetime':
      return null;
  }
}

/** The later of two ends, lifetime (null) beating any date. */
export function laterEnd(a: number | null, b: number | null): number | null {
  if (a === null || b === null) return null;
  return Math.max(a, b);
}
