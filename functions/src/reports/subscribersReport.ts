import type { Rail } from '../wire/vocabulary';
import { toWireEnv, type WireEnv } from '../store/env';
import type { EnvScope } from '../store/scope';
import { METRIC, SUBSCRIBER_ROLLUPS, SUBSCRIBER_SHARDS } from '../store/rollups/model';
import { hourOf } from '../store/rollups/periods';
import { checkRange, rangeHours, type Granularity, type ReportRange } from './range';
import { readRollupWindow, type RollupWindow } from './rollupRead';
import { seriesParts } from '../store/rollups/rollupWrite';
import { levelAt, levelsPerPeriod } from './series';

export interface SubscriberCount {
  entitlementKey: string;
  rail: Rail;
  active: number;
}

export interface SubscribersReport {
  object: 'list';
  /** Active customers now, per entitlement key and rail (rows with none are left out). */
  data: SubscriberCount[];
  /** Active customers now per entitlement key (over all its rails: one customer holds a key through one source). */
  totals: { entitlementKey: string; active: number }[];
  /** Per period (`t`: its start, Unix ms): customers active at its end (hour precision). */
  series: (SubscriberCount & { t: number })[];
  from: number;
  to: number;
  granularity: Granularity;
  env: WireEnv;
  generatedAt: number;
}

/**
 * `GET /v1/reports/subscribers`, as a service (the dashboard calls it directly). Reads the
 * subscriber rollups (subscriberRollup.ts) of the range plus the running totals before it: at most
 * (years of history + 11 + 30 + days in the range) × SUBSCRIBER_SHARDS documents, and the same
 * again for "now" when `to` is not in the current hour. Manual and migration grants count
 * (rail `manual`); revenue never does.
 */
export async function subscribersReport(scope: EnvScope, range: ReportRange, now: number): Promise<SubscribersReport> {
  const checked = checkRange(range, now);
  const hours = rangeHours(checked);
  const nowHour = hourOf(now);
  const [window, current] = await Promise.all([
    readRollupWindow(scope, SUBSCRIBER_ROLLUPS, hours.first, hours.last, { shards: SUBSCRIBER_SHARDS, metrics: [METRIC.active], runningMetrics: [METRIC.active], granularity: checked.granularity }),
    hours.last === nowHour ? null : readRollupWindow(scope, SUBSCRIBER_ROLLUPS, nowHour, nowHour, { shards: SUBSCRIBER_SHARDS, metrics: [METRIC.active], runningMetrics: [METRIC.active], granularity: 'hour' }),
  ]);

  const series: SubscribersReport['series'] = [];
  for (const key of seriesKeys(window)) {
    const [entitlementKey, rail] = seriesParts(key);
    const base = window.base.get(METRIC.active)?.get(key) ?? 0;
    for (const { t, value } of levelsPerPeriod(base, window.hourly.get(METRIC.active)?.get(key), checked)) {
      series.push({ t, entitlementKey, rail: rail as Rail, active: value });
    }
  }
  series.sort((a, b) => a.t - b.t || a.entitlementKey.localeCompare(b.entitlementKey) || a.rail.localeCompare(b.rail));

  const nowWindow = current ?? window;
  const data: SubscriberCount[] = [];
  for (const key of seriesKeys(nowWindow)) {
    const [entitlementKey, rail] = seriesParts(key);
    const active = levelAt(nowWindow.base.get(METRIC.active)?.get(key) ?? 0, nowWindow.hourly.get(METRIC.active)?.get(key), nowHour);
    if (active !== 0) data.push({ entitlementKey, rail: rail as Rail, active });
  }
  data.sort((a, b) => a.entitlementKey.localeCompare(b.entitlementKey) || a.rail.localeCompare(b.rail));
  const totals = new Map<string, number>();
  for (const row of data) totals.set(row.entitlementKey, (totals.get(row.entitlementKey) ?? 0) + row.active);

  return {
    object: 'list',
    data,
    totals: [...totals].map(([entitlementKey, active]) => ({ entitlementKey, active })),
    series,
    from: checked.from,
    to: checked.to,
    granularity: checked.granularity,
    env: toWireEnv(scope.env),
    generatedAt: now,
  };
}

function seriesKeys(window: RollupWindow): string[] {
  return [...new Set([...(window.base.get(METRIC.active)?.keys() ?? []), ...(window.hourly.get(METRIC.active)?.keys() ?? [])])].sort();
}
