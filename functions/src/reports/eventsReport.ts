import { toWireEnv, type WireEnv } from '../store/env';
import type { EnvScope } from '../store/scope';
import { EVENT_ROLLUPS, EVENT_SHARDS, METRIC } from '../store/rollups/model';
import { checkRange, periodStarts, rangeHours, type Granularity, type ReportRange } from './range';
import { readRollupWindow } from './rollupRead';
import { seriesKey, seriesParts } from '../store/rollups/rollupWrite';
import { sumsPerPeriod } from './series';

export interface EventsReport {
  object: 'list';
  /** Stored events per name per period (`t`: period start, Unix ms), for names seen in the range. */
  data: { t: number; name: string; count: number }[];
  /** Per period: events beyond the bucket in partly throttled batches, and those of them dropped. */
  throttling: { t: number; throttled: number; dropped: number }[];
  from: number;
  to: number;
  granularity: Granularity;
  env: WireEnv;
  generatedAt: number;
}

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
  const data: EventsReport['data'] = [];
  for (const key of [...(byName?.keys() ?? [])].sort()) {
    const [name] = seriesParts(key);
    const counts = sumsPerPeriod(byName?.get(key), checked);
    if (counts.every((c) => c.value === 0)) continue;
    for (const { t, value } of counts) data.push({ t, name, count: value });
  }
  data.sort((a, b) => a.t - b.t || a.name.localeCompare(b.name));
  const all = seriesKey('all');
  const throttled = sumsPerPeriod(window.hourly.get(METRIC.throttled)?.get(all), checked);
  const dropped = sumsPerPeriod(window.hourly.get(METRIC.dropped)?.get(all), checked);
  const throttling = periodStarts(checked).map((t, i) => ({ t, throttled: throttled[i].value, dropped: dropped[i].value }));
  return { object: 'list', data, throttling, from: checked.from, to: checked.to, granularity: checked.granularity, env: toWireEnv(scope.env), generatedAt: now };
}
