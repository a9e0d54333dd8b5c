import { toWireEnv } from '../store/env';
import type { EnvScope } from '../store/scope';
import { EVENT_ROLLUPS, EVENT_SHARDS, METRIC } from '../store/rollups/model';
import { checkRange, periodStarts, rangeHours, type ReportRange } from './range';
import { readRollupWindow } from './rollupRead';
import { seriesKey, seriesParts } from '../store/rollups/rollupWrite';
import { rowsByPeriod, sumsPerPeriod } from './series';
import type { EventsReport } from '../wire/reports';


/**
 * `GET /v1/reports/events`, as a service: the event rollups (eventRollup.ts) of the range's
 * days, at most (days in the range) × EVENT_SHARDS documents. Counts are of events stored by the
 * identity-resolution task (shortly after they land), each once, in the period of its timestamp.
 */
export async function eventsReport(scope: EnvScope, range: ReportRange, now: number): Promise<EventsReport> {
  const checked = checkRange(range, now);
  const hours = rangeHours(checked);
  const window = await readRollupWindow(scope, EVENT_ROLLUPS, hours.first, hours.last, { shards: EVENT_SHARDS, metrics: [METRIC.events, METRIC.throttled, METRIC.dropped], runningMetrics: [], granularity: checked.granularity });
  const byName = window.hourly.get(METRIC.events);
  const names = [...(byName?.keys() ?? [])]
    .sort()
    .map((key) => ({ name: seriesParts(key)[0], counts: sumsPerPeriod(byName?.get(key), checked) }))
    .filter((n) => n.counts.some((c) => c.value !== 0));
  const data: EventsReport['data'] = rowsByPeriod(periodStarts(checked), names, (a, b) => a.name.localeCompare(b.name), (t, n, i) => ({ t, name: n.name, count: n.counts[i].value }));
  const all = seriesKey('all');
  const throttled = sumsPerPeriod(window.hourly.get(METRIC.throttled)?.get(all), checked);
  const dropped = sumsPerPeriod(window.hourly.get(METRIC.dropped)?.get(all), checked);
  const throttling = periodStarts(checked).map((t, i) => ({ t, throttled: throttled[i].value, dropped: dropped[i].value }));
  return { object: 'list', data, throttling, from: checked.from, to: checked.to, granularity: checked.granularity, env: toWireEnv(scope.env), generatedAt: now };
}
