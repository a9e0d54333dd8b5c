import type { CatalogRail } from '../wire/vocabulary';
import { toWireEnv, type WireEnv } from '../store/env';
import type { EnvScope } from '../store/scope';
import { METRIC, REVENUE_ROLLUPS, REVENUE_SHARDS } from '../store/rollups/model';
import { hourOf } from '../store/rollups/periods';
import { checkRange, periodStarts, rangeHours, type Granularity, type ReportRange } from './range';
import { readRollupWindow } from './rollupRead';
import { seriesParts } from '../store/rollups/rollupWrite';
import { levelAt, sumsPerPeriod } from './series';

export interface RevenuePeriod {
  /** Period start, Unix ms. */
  t: number;
  currency: string;
  rail: CatalogRail;
  /** Minor units of `currency`. */
  gross: number;
  refunds: number;
  net: number;
}

export interface RevenueReport {
  object: 'list';
  /** Per period, currency and rail that had money in the range (every period of such a pair). */
  data: RevenuePeriod[];
  /** Monthly recurring revenue now, per currency (minor units): paid periods in force, refunded ones excluded. */
  mrr: { currency: string; amount: number }[];
  from: number;
  to: number;
  granularity: Granularity;
  env: WireEnv;
  generatedAt: number;
}

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
  const data: RevenuePeriod[] = [];
  for (const pair of pairs) {
    const [currency, rail] = seriesParts(pair);
    const grossPer = sumsPerPeriod(gross?.get(pair), checked);
    const refundsPer = sumsPerPeriod(refunds?.get(pair), checked);
    if (grossPer.every((p) => p.value === 0) && refundsPer.every((p) => p.value === 0)) continue;
    periodStarts(checked).forEach((t, i) => {
      data.push({ t, currency, rail: rail as CatalogRail, gross: grossPer[i].value, refunds: refundsPer[i].value, net: grossPer[i].value - refundsPer[i].value });
    });
  }
  data.sort((a, b) => a.t - b.t || a.currency.localeCompare(b.currency) || a.rail.localeCompare(b.rail));

  const currencies = [...new Set([...(current.base.get(METRIC.mrr)?.keys() ?? []), ...(current.hourly.get(METRIC.mrr)?.keys() ?? [])])].sort();
  const mrr = currencies
    .map((key) => ({ currency: seriesParts(key)[0], amount: levelAt(current.base.get(METRIC.mrr)?.get(key) ?? 0, current.hourly.get(METRIC.mrr)?.get(key), nowHour) }))
    .filter((row) => row.amount !== 0);

  return { object: 'list', data, mrr, from: checked.from, to: checked.to, granularity: checked.granularity, env: toWireEnv(scope.env), generatedAt: now };
}
