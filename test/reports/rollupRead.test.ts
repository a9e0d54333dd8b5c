/**
 * Guarantee of the rollup reads: a running total is the same whatever the periods its history
 * falls in — earlier years, earlier months of the year, earlier days of the month, the range, and
 * scheduled changes after now (not yet counted) — and a range that starts in January reads its
 * totals from the years before.
 */
import { ManualClock } from '../support/manualClock';
import { METRIC, SUBSCRIBER_ROLLUPS } from '../../functions/src/store/rollups/model';
import { hourOf } from '../../functions/src/store/rollups/periods';
import { seriesKey, writeRollupDeltas } from '../../functions/src/store/rollups/rollupWrite';
import { subscribersReport } from '../../functions/src/reports/subscribersReport';
import { EnvScope } from '../../functions/src/store/scope';
import { createTestService, seedProject } from '../support/harness';
import { DAY_MS } from './support';

const NOW = Date.UTC(2026, 0, 20, 12, 30);

it('adds up history across years, months, days and the range, and leaves the future out', async () => {
  const service = createTestService({ clock: new ManualClock(NOW) });
  const project = await seedProject(service);
  const scope = new EnvScope(service.deps.db, project.projectId, 'test');
  const series = seriesKey('pro', 'stripe');
  const at = (ms: number, amount: number, shard: number) => ({ ms, amount, shard });
  const changes = [
    at(Date.UTC(2024, 5, 1), 1, 0), // two years back
    at(Date.UTC(2025, 11, 31, 23), 2, 1), // last hour of last year
    at(Date.UTC(2026, 0, 2), 4, 2), // this month, before the range
    at(Date.UTC(2026, 0, 10, 5), 8, 3), // first day of the range
    at(Date.UTC(2026, 0, 15), -3, 0), // inside the range
    at(Date.UTC(2026, 0, 20, 12), 16, 1), // this hour
    at(Date.UTC(2026, 0, 20, 18), -16, 2), // later today: not yet
    at(Date.UTC(2026, 2, 1), -1, 3), // in March: not yet
  ];
  const batch = service.deps.db.batch();
  for (const change of changes) {
    writeRollupDeltas(batch, scope, SUBSCRIBER_ROLLUPS, change.shard, [{ metric: METRIC.active, series, hour: hourOf(change.ms), amount: change.amount, running: true }]);
  }
  await batch.commit();

  const from = Date.UTC(2026, 0, 10);
  const body = await subscribersReport(scope, { from, to: NOW, granularity: 'day' }, NOW);
  expect(body.data).toEqual([{ entitlementKey: 'pro', rail: 'stripe', active: 1 + 2 + 4 + 8 - 3 + 16 }]);
  const values = body.series.map((row) => [(row.t - from) / DAY_MS, row.active]);
  expect(values).toEqual(Array.from({ length: 11 }, (_, k) => [k, k < 5 ? 15 : k < 10 ? 12 : 28]));

  // By hour, from a January range: the total before it comes from the year documents.
  const hourly = await subscribersReport(scope, { from: Date.UTC(2026, 0, 1), to: Date.UTC(2026, 0, 1, 1), granularity: 'hour' }, NOW);
  expect(hourly.series.map((row) => row.active)).toEqual([3, 3]);
  expect(hourly.data[0].active).toBe(28);
});

it('adds up a by-day range that crosses a month and a year, with days, months and years before it (the first month read from its total minus its later days)', async () => {
  const service = createTestService({ clock: new ManualClock(NOW) });
  const project = await seedProject(service);
  const scope = new EnvScope(service.deps.db, project.projectId, 'test');
  const series = seriesKey('pro', 'apple');
  const changes: [number, number][] = [
    [Date.UTC(2023, 2, 3), 1], // an earlier year
    [Date.UTC(2025, 4, 9), 2], // an earlier month of the range's first year
    [Date.UTC(2025, 11, 2, 7), 4], // the first month, before the range
    [Date.UTC(2025, 11, 28, 23), 8], // the range's first day, its last hour
    [Date.UTC(2026, 0, 1), -1], // the new year, inside the range
    [Date.UTC(2026, 0, 3, 12), 16], // the range's last day, before `to`
    [Date.UTC(2026, 0, 3, 20), 32], // the range's last day, after `to`: not yet
  ];
  const batch = service.deps.db.batch();
  changes.forEach(([ms, amount], i) =>
    writeRollupDeltas(batch, scope, SUBSCRIBER_ROLLUPS, i % 4, [{ metric: METRIC.active, series, hour: hourOf(ms), amount, running: true }]),
  );
  await batch.commit();

  const from = Date.UTC(2025, 11, 28, 5);
  const to = Date.UTC(2026, 0, 3, 15);
  const body = await subscribersReport(scope, { from, to, granularity: 'day' }, NOW);
  expect(body.series.map((row) => [row.t, row.active])).toEqual([
    [Date.UTC(2025, 11, 28), 15],
    [Date.UTC(2025, 11, 29), 15],
    [Date.UTC(2025, 11, 30), 15],
    [Date.UTC(2025, 11, 31), 15],
    [Date.UTC(2026, 0, 1), 14],
    [Date.UTC(2026, 0, 2), 14],
    [Date.UTC(2026, 0, 3), 30],
  ]);
  // "Now" (NOW is later in January): everything up to this hour, the scheduled +32 included.
  expect(body.data).toEqual([{ entitlementKey: 'pro', rail: 'apple', active: 62 }]);
});
