import type { Rail } from '../wire/vocabulary';
import { toWireEnv } from '../store/env';
import type { EnvScope } from '../store/scope';
import { METRIC, SUBSCRIBER_ROLLUPS, SUBSCRIBER_SHARDS } from '../store/rollups/model';
import { hourOf } from '../store/rollups/periods';
import { checkRange, periodStarts, rangeHours, type ReportRange } from './range';
import { readRollupWindow, type RollupWindow } from './rollupRead';
import { seriesParts } from '../store/rollups/rollupWrite';
import { levelAt, levelsPerPeriod, rowsByPeriod } from './series';
import type { SubscribersReport } from '../wire/reports';

type SubscriberCount = SubscribersReport['data'][number];



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

  const levels = seriesKeys(window).map((key) => {
    const [entitlementKey, rail] = seriesParts(key);
    const base = window.base.get(METRIC.active)?.get(key) ?? 0;
    return { entitlementKey, rail: rail as Rail, values: levelsPerPeriod(base, window.hourly.get(METRIC.active)?.get(key), checked) };
  });
  const series: SubscribersReport['series'] = rowsByPeriod(
    periodStarts(checked),
    levels,
    (a, b) => a.entitlementKey.localeCompare(b.entitlementKey) || a.rail.localeCompare(b.rail),
    (t, of, i) => ({ t, entitlementKey: of.entitlementKey, rail: of.rail, active: of.values[i].value }),
  );

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
