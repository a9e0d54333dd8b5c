import type { Firestore } from 'firebase-admin/firestore';
import { getProject } from '../../projects/repository';
import {
  checkRange,
  DEFAULT_PAGE_SIZE,
  DEFAULT_WINDOW_MS,
  errorsReport,
  eventsReport,
  revenueReport,
  subscribersReport,
  type Granularity,
  type ReportRange,
} from '../../reports';
import type { ErrorsReport, EventsReport, RevenueReport, SubscribersReport } from '../../wire/reports';
import { ENVS } from '../../store/env';
import { EnvScope } from '../../store/scope';
import { optionalString, requireOneOf, requireString, type Command, type Values } from '../command';
import { OperatorError } from '../operatorError';
import { money, renderTable, utcTime } from '../table';

/**
 * `tessera reports subscribers|revenue|events|errors`: the reports API's services (the same
 * figures as `GET /v1/reports/…`), read straight from the store, as a table or as JSON.
 */
const DAY_MS = 86_400_000;
const RANGE_OPTIONS = { project: { type: 'string' }, env: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, granularity: { type: 'string' } } as const;
const RANGE_SUMMARY = '--project ID --env test|live [--from DAY] [--to DAY] [--granularity day|hour] [--format table|json]';

/** `2026-11-01` (UTC day) or Unix milliseconds; `endOfDay` moves a day to its last millisecond (an inclusive `--to`). */
export function parseDay(value: string, name: string, endOfDay: boolean): number {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const start = Date.parse(`${value}T00:00:00.000Z`);
    if (Number.isNaN(start) || new Date(start).toISOString().slice(0, 10) !== value) throw new OperatorError('invalid_argument', `--${name} ${value} is not a calendar day (YYYY-MM-DD).`);
    return endOfDay ? start + DAY_MS - 1 : start;
  }
  if (/^\d{1,16}$/.test(value)) return Number(value);
  throw new OperatorError('invalid_argument', `--${name} must be a day (YYYY-MM-DD, UTC) or Unix milliseconds, got '${value}'.`);
}

async function scopeOf(values: Values, db: Firestore): Promise<EnvScope> {
  const projectId = requireString(values, 'project');
  const env = requireOneOf(values, 'env', ENVS);
  await getProject(db, projectId);
  return new EnvScope(db, projectId, env);
}

/** `--from` / `--to` as an inclusive window (default: the last 30 days to now). */
function windowOf(values: Values, now: number): { from: number; to: number } {
  const toText = optionalString(values, 'to');
  const fromText = optionalString(values, 'from');
  const to = toText === undefined ? now : parseDay(toText, 'to', true);
  const from = fromText === undefined ? to - DEFAULT_WINDOW_MS + 1 : parseDay(fromText, 'from', false);
  return { from, to };
}

function rangeOf(values: Values, now: number): ReportRange {
  const granularity = (optionalString(values, 'granularity') === undefined ? 'day' : requireOneOf(values, 'granularity', ['day', 'hour'] as const)) as Granularity;
  return checkRange({ ...windowOf(values, now), granularity }, now);
}

/** A series report's command: the same options and run for each; only its service and table differ. */
function seriesCommand<R>(name: string, about: string, report: (scope: EnvScope, range: ReportRange, now: number) => Promise<R>, table: (result: R) => string): Command {
  return {
    name,
    summary: `${RANGE_SUMMARY}   (${about})`,
    options: RANGE_OPTIONS,
    async run(values, { db, clock }) {
      const now = clock.now();
      const range = rangeOf(values, now);
      return report(await scopeOf(values, db), range, now);
    },
    table: (result) => table(result as R),
  };
}

const periodLabel = (t: number, granularity: Granularity) => utcTime(t, granularity === 'hour');

export const reportCommands: Command[] = [
  seriesCommand('reports subscribers', 'active subscribers now, and per period, by entitlement and rail', subscribersReport, (report: SubscribersReport) => {
    const now = renderTable(['entitlement', 'rail', 'active now'], report.data.map((r) => [r.entitlementKey, r.rail, r.active]));
    const series = renderTable(['period', 'entitlement', 'rail', 'active'], report.series.map((r) => [periodLabel(r.t, report.granularity), r.entitlementKey, r.rail, r.active]));
    return `Active subscribers now (${report.env})\n${now}\nBy ${report.granularity}, ${utcTime(report.from)} to ${utcTime(report.to)}\n${series}`;
  }),
  seriesCommand('reports revenue', 'gross, refunds and net per period, currency and rail; MRR now', revenueReport, (report: RevenueReport) => {
    const mrr = renderTable(['currency', 'MRR now'], report.mrr.map((m) => [m.currency.toUpperCase(), money(m.amount, m.currency)]));
    const periods = renderTable(
      ['period', 'rail', 'gross', 'refunds', 'net'],
      report.data.map((r) => [periodLabel(r.t, report.granularity), r.rail, money(r.gross, r.currency), money(r.refunds, r.currency), money(r.net, r.currency)]),
    );
    return `Monthly recurring revenue (${report.env})\n${mrr}\nBy ${report.granularity}, ${utcTime(report.from)} to ${utcTime(report.to)}\n${periods}`;
  }),
  seriesCommand('reports events', 'stored events per name and period, and throttling', eventsReport, (report: EventsReport) => {
    const events = renderTable(['period', 'event', 'count'], report.data.map((r) => [periodLabel(r.t, report.granularity), r.name, r.count]));
    const throttled = report.throttling.filter((r) => r.throttled > 0 || r.dropped > 0);
    const throttling = renderTable(['period', 'throttled', 'dropped'], throttled.map((r) => [periodLabel(r.t, report.granularity), r.throttled, r.dropped]));
    return `Events (${report.env}) by ${report.granularity}, ${utcTime(report.from)} to ${utcTime(report.to)}\n${events}\nThrottling\n${throttling}`;
  }),
  {
    name: 'reports errors',
    summary: '--project ID --env test|live [--from DAY] [--to DAY] [--limit N] [--cursor C] [--format table|json]   (error groups last seen in the range, newest first)',
    options: { project: { type: 'string' }, env: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, limit: { type: 'string' }, cursor: { type: 'string' } },
    async run(values, { db, clock }) {
      const now = clock.now();
      const { from, to } = windowOf(values, now);
      if (from > to) throw new OperatorError('invalid_argument', '--from must not be later than --to.');
      const limitText = optionalString(values, 'limit');
      if (limitText !== undefined && !/^(?:[1-9][0-9]?|100)$/.test(limitText)) throw new OperatorError('invalid_argument', '--limit must be an integer from 1 to 100.');
      return errorsReport(await scopeOf(values, db), { from, to, cursor: optionalString(values, 'cursor') ?? null, limit: limitText === undefined ? DEFAULT_PAGE_SIZE : Number(limitText) });
    },
    table(result) {
      const report = result as ErrorsReport;
      const groups = renderTable(
        ['last seen', 'error', 'message', 'count', 'customers', 'release'],
        report.data.map((g) => [utcTime(g.lastSeen, true), g.name, (g.message ?? '').slice(0, 60), g.count, g.customers, g.lastRelease]),
      );
      return `Error groups (${report.env}), newest first\n${groups}${report.nextCursor ? `More: --cursor ${report.nextCursor}\n` : ''}`;
    },
  },
];
