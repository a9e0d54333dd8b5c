/**
 * Guarantees of the reports' pure rules: the subscriber difference array (start, renewal,
 * early end, rail change, an entitlement already run out), hour precision of ends, the MRR share
 * of a payment, minor units per currency, ranges (defaults, whole periods, limits) and how
 * hourly figures become periods (sums for flows, running totals for levels).
 */
import type { PublicEntitlement } from '../../functions/src/entitlements/model';
import { currencyDigits, minorFromMilli, minorFromUnitsNanos, monthlyAmount, normaliseCurrency } from '../../functions/src/store/rollups/revenueFacts';
import { parseRange, periodStarts } from '../../functions/src/reports/range';
import { levelsPerPeriod, rowsByPeriod, sumsPerPeriod } from '../../functions/src/reports/series';
import { subscriberDeltas } from '../../functions/src/entitlements/subscriberRollup';
import { DomainError } from '../../functions/src/errors/domain';
import { checkPageSize } from '../../functions/src/reports/cursor';

const H = 3_600_000;
const D = 24 * H;
const T0 = Date.UTC(2026, 5, 15, 10, 30);
const ent = (validUntilMs: number | null, rail: PublicEntitlement['source']['rail'] = 'manual'): PublicEntitlement => ({
  object: 'entitlement',
  key: 'pro',
  isActive: true,
  validUntil: validUntilMs === null ? null : Math.floor(validUntilMs / 1000),
  source: { rail, productId: 'p', subscriptionId: 's' },
  updatedAt: 0,
});
const deltas = (before: PublicEntitlement | null, after: PublicEntitlement | null) =>
  subscriberDeltas({ key: 'pro', before, after, changedAt: T0 }).map((d) => [d.series, d.hour * H - T0, d.amount]);

describe('subscriber deltas', () => {
  it('a new entitlement starts in its hour and ends in the hour of its last active instant', () => {
    expect(deltas(null, ent(T0 + 30 * D))).toEqual([
      ['["pro","manual"]', -30 * 60_000, 1],
      ['["pro","manual"]', 30 * D - 30 * 60_000, -1],
    ]);
    // Ending exactly on the hour: its last active instant is in the hour before.
    expect(deltas(null, ent(T0 + 30 * 60_000 + D))[1]).toEqual(['["pro","manual"]', D - 30 * 60_000, -1]);
    expect(deltas(null, ent(null))).toEqual([['["pro","manual"]', -30 * 60_000, 1]]);
  });

  it('a renewal on the same rail only moves the end', () => {
    expect(deltas(ent(T0 + D), ent(T0 + 31 * D))).toEqual([
      ['["pro","manual"]', D - 30 * 60_000, 1],
      ['["pro","manual"]', 31 * D - 30 * 60_000, -1],
    ]);
    expect(deltas(ent(T0 + D), ent(T0 + D + 60_000))).toEqual([]);
  });

  it('an early end (revoke, merge) cancels the scheduled end and ends in the current hour', () => {
    expect(deltas(ent(T0 + D), null)).toEqual([
      ['["pro","manual"]', D - 30 * 60_000, 1],
      ['["pro","manual"]', -30 * 60_000, -1],
    ]);
  });

  it('an entitlement that already ran out changes nothing when it is removed', () => {
    expect(deltas(ent(T0 - H), null)).toEqual([]);
    expect(deltas(ent(T0 - H), ent(T0 + D))).toHaveLength(2);
  });

  it('a change of rail ends one series and starts the other in the same hour (never counted twice)', () => {
    expect(deltas(ent(null, 'manual'), ent(null, 'stripe'))).toEqual([
      ['["pro","manual"]', -30 * 60_000, -1],
      ['["pro","stripe"]', -30 * 60_000, 1],
    ]);
  });
});

describe('money', () => {
  it('converts rail amounts to minor units of the currency', () => {
    expect(currencyDigits('USD')).toBe(2);
    expect(currencyDigits('JPY')).toBe(0);
    expect(currencyDigits('KWD')).toBe(3);
    expect(normaliseCurrency('usd')).toBe('USD');
    expect(normaliseCurrency('nope')).toBeNull();
    expect(minorFromMilli(9990, 'USD')).toBe(999);
    expect(minorFromMilli(480000, 'JPY')).toBe(480);
    expect(minorFromUnitsNanos('4', 990_000_000, 'EUR')).toBe(499);
  });

  it('counts a month of any length as one month of MRR; a year as a twelfth; a week scaled up', () => {
    expect(monthlyAmount(999, { start: 0, end: 28 * D })).toBe(999);
    expect(monthlyAmount(999, { start: 0, end: 31 * D })).toBe(999);
    expect(monthlyAmount(12000, { start: 0, end: 365 * D })).toBe(1000);
    expect(monthlyAmount(300, { start: 0, end: 7 * D })).toBe(1304);
  });
});

describe('ranges and periods', () => {
  const now = T0;
  it('defaults to the last 30 days by day, and covers whole periods', () => {
    const range = parseRange({}, now);
    expect(range).toEqual({ from: now - 30 * D, to: now, granularity: 'day' });
    expect(periodStarts(range)).toHaveLength(31);
    expect(periodStarts(range)[0]).toBe(Date.UTC(2026, 4, 16));
    expect(periodStarts(parseRange({ from: String(now - 2 * H), granularity: 'hour' }, now))).toEqual([T0 - 2.5 * H, T0 - 1.5 * H, T0 - 0.5 * H]);
  });

  it('never reaches past now, and refuses inverted or too long ranges', () => {
    expect(parseRange({ to: String(now + D) }, now).to).toBe(now);
    expect(() => parseRange({ from: String(now + H) }, now)).toThrow(DomainError);
    expect(() => parseRange({ from: String(now - 400 * D) }, now)).toThrow(/at most 366 day periods/);
    expect(() => parseRange({ from: String(now - 32 * D), granularity: 'hour' }, now)).toThrow(/at most 744 hour periods/);
  });

  it('sums flows per period and carries levels as running totals', () => {
    const range = { from: Date.UTC(2026, 5, 1), to: Date.UTC(2026, 5, 3, 5), granularity: 'day' as const };
    const h = (day: number, hour: number) => Date.UTC(2026, 5, day, hour) / H;
    const hourly = new Map([[h(1, 3), 2], [h(2, 23), 5], [h(3, 4), -1], [h(3, 9), 100]]);
    expect(sumsPerPeriod(hourly, range).map((p) => p.value)).toEqual([2, 5, -1]);
    expect(levelsPerPeriod(10, hourly, range).map((p) => p.value)).toEqual([12, 17, 16]);
  });

  // Reference: each period's hours taken one by one (what the one-pass versions replace).
  const hoursOf = (t: number, range: { to: number; granularity: 'day' | 'hour' }) => {
    const size = range.granularity === 'day' ? D : H;
    return { first: Math.floor(t / H), last: Math.min(Math.floor((t + size - 1) / H), Math.floor(range.to / H)) };
  };
  const referenceSums = (hourly: Map<number, number>, range: { from: number; to: number; granularity: 'day' | 'hour' }) =>
    periodStarts(range).map((t) => [...hourly].filter(([hour]) => hour >= hoursOf(t, range).first && hour <= hoursOf(t, range).last).reduce((sum, [, n]) => sum + n, 0));
  const referenceLevels = (base: number, hourly: Map<number, number>, range: { from: number; to: number; granularity: 'day' | 'hour' }) =>
    periodStarts(range).map((t) => [...hourly].filter(([hour]) => hour <= hoursOf(t, range).last).reduce((sum, [, n]) => sum + n, base));

  it('puts each hour in its period by index, by day and by hour, leaving out hours before the range and after `to`', () => {
    const ranges = [
      { from: Date.UTC(2026, 1, 20, 7, 10), to: Date.UTC(2026, 2, 3, 14, 5), granularity: 'day' as const },
      { from: Date.UTC(2026, 1, 27, 22, 59), to: Date.UTC(2026, 2, 1, 3, 0), granularity: 'hour' as const },
    ];
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    for (const range of ranges) {
      // Hours from two days before the range to two days after `to`, in no order (a Map fed by shards).
      const hourly = new Map<number, number>();
      for (let i = 0; i < 400; i += 1) hourly.set(Math.floor((range.from - 2 * D) / H) + (next() % (Math.ceil((range.to - range.from) / H) + 96)), (next() % 21) - 10);
      expect(sumsPerPeriod(hourly, range).map((p) => p.value)).toEqual(referenceSums(hourly, range));
      expect(levelsPerPeriod(5, hourly, range).map((p) => p.value)).toEqual(referenceLevels(5, hourly, range));
      expect(sumsPerPeriod(hourly, range).map((p) => p.t)).toEqual(periodStarts(range));
    }
  });

  it('orders rows by period, then by the series order, as one sort of every row would', () => {
    const series = ['b', 'B', 'a', 'ä', 'A', 'a'].map((key, n) => ({ key, n }));
    const compare = (x: { key: string }, y: { key: string }) => x.key.localeCompare(y.key);
    const starts = [300, 100, 200].sort((x, y) => x - y);
    const rows = rowsByPeriod(starts, series, compare, (t, of) => ({ t, key: of.key, n: of.n }));
    const everyRow = series.flatMap((of) => starts.map((t) => ({ t, key: of.key, n: of.n }))); // series by series, as the reports pushed them
    expect(rows).toEqual([...everyRow].sort((x, y) => x.t - y.t || compare(x, y)));
    expect(series.map((of) => of.key)).toEqual(['b', 'B', 'a', 'ä', 'A', 'a']); // the caller's list is left as it was
  });
});

describe('pages', () => {
  it('takes page sizes from 1 to 100 from any caller', () => {
    expect(checkPageSize(20)).toBe(20);
    for (const bad of [0, 101, 1.5, Number.NaN]) expect(() => checkPageSize(bad)).toThrow(DomainError);
  });
});
