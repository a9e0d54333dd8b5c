import type { CatalogRail } from '../wire/vocabulary';
import { toWireEnv } from '../store/env';
import type { EnvScope } from '../store/scope';
import { METRIC, REVENUE_ROLLUPS, REVENUE_SHARDS } from '../store/rollups/model';
import { hourOf } from '../store/rollups/periods';
import { checkRange, periodStarts, rangeHours, type ReportRange } from './range';
import { readRollupWindow } from './rollupRead';
import { seriesParts } from '../store/rollups/rollupWrite';
import { levelAt, rowsByPeriod, sumsPerPeriod } from './series';
import type { RevenueReport } from '../wire/reports';

type RevenuePeriod = RevenueReport['data'][number];



/**
 * `GET /v1/reports/revenue`, as a service. Gross and refunds come from the rails' own records
 * (revenueFacts.ts): the day documents of the range (days × REVENUE_SHARDS); MRR from the running
 * totals at the current hour ((years + 11 + 30 + 1) × REVENUE_SHARDS at most). Manual grants
 * never count.
 */
export async function revenueReport(scope: EnvScope, range: ReportRange, now: number): Promise<RevenueReport> {
  const checked = checkRange(range, now);
  const hours = rangeHours(checked);
  const nowHour = hourOf(now);
  const [window, current] = await Promise.all([
    readRollupWindow(scope, REVENUE_ROLLUPS, hours.first, hours.last, { shards: REVENUE_SHARDS, metrics: [METRIC.gross, METRIC.refunds], runningMetrics: [], granularity: checked.granularity }),
    readRollupWindow(scope, REVENUE_ROLLUPS, nowHour, nowHour, { shards: REVENUE_SHARDS, metrics: [METRIC.mrr], runningMetrics: [METRIC.mrr], granularity: 'hour' }),
  ]);

  const gross = window.hourly.get(METRIC.gross);
  const refunds = window.hourly.get(METRIC.refunds);
  const pairs = [...new Set([...(gross?.keys() ?? []), ...(refunds?.keys() ?? [])])].sort();
  const figures = pairs
    .map((pair) => {
      const [currency, rail] = seriesParts(pair);
      return { currency, rail: rail as CatalogRail, gross: sumsPerPeriod(gross?.get(pair), checked), refunds: sumsPerPeriod(refunds?.get(pair), checked) };
    })
    .filter((f) => f.gross.some((p) => p.value !== 0) || f.refunds.some((p) => p.value !== 0));
  const data: RevenuePeriod[] = rowsByPeriod(
    periodStarts(checked),
    figures,
    (a, b) => a.currency.localeCompare(b.currency) || a.rail.localeCompare(b.rail),
    (t, f, i) => ({ t, currency: f.currency, rail: f.rail, gross: f.gross[i].value, refunds: f.refunds[i].value, net: f.gross[i].value - f.refunds[i].value }),
  );

  const currencies = [...new Set([...(current.base.get(METRIC.mrr)?.keys() ?? []), ...(current.hourly.get(METRIC.mrr)?.keys() ?? [])])].sort();
  const mrr = currencies
    .map((key) => ({ currency: seriesParts(key)[0], amount: levelAt(current.base.get(METRIC.mrr)?.get(key) ?? 0, current.hourly.get(METRIC.mrr)?.get(key), nowHour) }))
    .filter((row) => row.amount !== 0);

  return { object: 'list', data, mrr, from: checked.from, to: checked.to, granularity: checked.granularity, env: toWireEnv(scope.env), generatedAt: now };
}
