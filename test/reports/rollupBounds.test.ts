/**
 * Guarantee of the rollup layout (rollupWrite.ts, rollupRead.ts): the documents a report reads
 * are bounded by its range, not by the history behind it. The same 30-day reports over 1 year
 * and over 10 years of history read exactly as many documents, and at most 64 each.
 */
import type { DocumentReference } from 'firebase-admin/firestore';
import { ManualClock } from '../support/manualClock';
import { eventsReport } from '../../functions/src/reports/eventsReport';
import { EVENT_ROLLUPS, METRIC, REVENUE_ROLLUPS, SUBSCRIBER_ROLLUPS } from '../../functions/src/store/rollups/model';
import { hourOf } from '../../functions/src/store/rollups/periods';
import { revenueReport } from '../../functions/src/reports/revenueReport';
import { seriesKey, writeRollupDeltas, type RollupDelta } from '../../functions/src/store/rollups/rollupWrite';
import { subscribersReport } from '../../functions/src/reports/subscribersReport';
import { EnvScope } from '../../functions/src/store/scope';
import { RoundTripCounter, withRoundTripCounter } from '../../functions/src/store/roundTrips';
import { commitInBatches, type SeedWrite } from '../../fixtures/rollupSeeding';
import { createTestService, seedProject, type TestService } from '../support/harness';
import { DAY_MS } from './support';

const NOW = Date.UTC(2026, 10, 25, 12, 30);

/** A project whose three rollups (shard 0) hold one change every 30 days for `years` years. */
async function projectWithHistory(service: TestService, years: number): Promise<EnvScope> {
  const project = await seedProject(service);
  const scope = new EnvScope(service.deps.db, project.projectId, 'test');
  const sets: SeedWrite[] = [];
  const writer = { set: (ref: DocumentReference, data: Record<string, unknown>) => sets.push({ ref, data }) };
  const days = Array.from({ length: Math.ceil((years * 365) / 30) }, (_, i) => NOW - i * 30 * DAY_MS);
  const deltas = (metric: string, series: string, running: boolean): RollupDelta[] => days.map((ms) => ({ metric, series, hour: hourOf(ms), amount: 1, running }));
  writeRollupDeltas(writer, scope, SUBSCRIBER_ROLLUPS, 0, deltas(METRIC.active, seriesKey('pro', 'stripe'), true));
  writeRollupDeltas(writer, scope, REVENUE_ROLLUPS, 0, [...deltas(METRIC.gross, seriesKey('USD', 'stripe'), false), ...deltas(METRIC.mrr, seriesKey('USD'), true)]);
  writeRollupDeltas(writer, scope, EVENT_ROLLUPS, 0, deltas(METRIC.events, seriesKey('app_open'), false));
  await commitInBatches(service.deps.db, sets);
  return scope;
}

/** Documents one report call reads (counted at the store edge, as for a request). */
async function documentsRead(run: () => Promise<unknown>): Promise<number> {
  const counter = new RoundTripCounter();
  await withRoundTripCounter(counter, run);
  return counter.documents;
}

it('reads as many documents for a 30-day report over 10 years of history as over 1 year, at most 64', async () => {
  const service = createTestService({ clock: new ManualClock(NOW) });
  const [short, long] = [await projectWithHistory(service, 1), await projectWithHistory(service, 10)];
  const range = { from: NOW - 30 * DAY_MS, to: NOW, granularity: 'day' as const };
  const reports = [subscribersReport, revenueReport, eventsReport];
  for (const report of reports) {
    const [few, many] = [await documentsRead(() => report(short, range, NOW)), await documentsRead(() => report(long, range, NOW))];
    expect(many).toBe(few);
    expect(many).toBeLessThanOrEqual(64);
  }
  // The longer history is there and counted: every shard's changes of the 10 years are active now.
  const body = await subscribersReport(long, range, NOW);
  expect(body.data).toEqual([{ entitlementKey: 'pro', rail: 'stripe', active: Math.ceil((10 * 365) / 30) }]);
});

it('reads a report in as few getAlls as keep every mask exact: 30 days by day in 2 (3 with MRR now), a week by hour in 1', async () => {
  const service = createTestService({ clock: new ManualClock(NOW) });
  const scope = await projectWithHistory(service, 2);
  const calls = async (run: () => Promise<unknown>) => {
    const counter = new RoundTripCounter();
    const answer = await withRoundTripCounter(counter, run);
    return { calls: counter.count, documents: counter.documents, answer };
  };
  const byDay = { from: NOW - 30 * DAY_MS, to: NOW, granularity: 'day' as const };
  const byHour = { from: NOW - 7 * DAY_MS, to: NOW, granularity: 'hour' as const };
  // Day documents, the two months (other days), the year and all-time documents (4 shards each
  // for subscribers): the second month's days differ from the first's, so it has its own call.
  expect(await calls(() => subscribersReport(scope, byDay, NOW))).toMatchObject({ calls: 2, documents: 20 });
  expect(await calls(() => revenueReport(scope, byDay, NOW))).toMatchObject({ calls: 3, documents: 28 });
  expect(await calls(() => eventsReport(scope, byDay, NOW))).toMatchObject({ calls: 2, documents: 24 });
  expect(await calls(() => subscribersReport(scope, byHour, NOW))).toMatchObject({ calls: 1, documents: 44 });
  // The figures are all there: every change of the 2 years is active now.
  const { answer } = await calls(() => subscribersReport(scope, byDay, NOW));
  expect((answer as { data: unknown[] }).data).toEqual([{ entitlementKey: 'pro', rail: 'stripe', active: Math.ceil((2 * 365) / 30) }]);
});

it("reads only the key's partition through the shared getAlls: every document of every call is under its project and environment", async () => {
  const service = createTestService({ clock: new ManualClock(NOW) });
  const [mine, other] = [await projectWithHistory(service, 2), await projectWithHistory(service, 2)];
  const read = jest.spyOn(mine, 'getAllMasked');
  const ranges = [
    { from: NOW - 30 * DAY_MS, to: NOW, granularity: 'day' as const },
    { from: NOW - 7 * DAY_MS, to: NOW, granularity: 'hour' as const },
    { from: NOW - 400 * DAY_MS, to: NOW - 40 * DAY_MS, granularity: 'day' as const }, // 13 months, "now" read apart
  ];
  for (const range of ranges) for (const report of [subscribersReport, revenueReport, eventsReport]) await report(mine, range, NOW);
  const paths = read.mock.calls.flatMap(([refs]) => refs.map((ref) => ref.path));
  expect(paths.length).toBeGreaterThan(0);
  for (const path of paths) expect(path.startsWith(`projects/${mine.projectId}/envs/test/`)).toBe(true);
  expect(paths.some((path) => path.includes(other.projectId))).toBe(false);
  // No document twice in one call (each snapshot is applied to the read that asked for it).
  for (const [refs] of read.mock.calls) expect(new Set(refs.map((ref) => ref.path)).size).toBe(refs.length);
});
