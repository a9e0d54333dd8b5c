/**
 * Guarantees of the rollup compaction (store/rollups/compaction.ts): moving the figures of shards
 * 1…N−1 into shard 0 never changes a report (by day or by hour, levels and flows, past hours and
 * scheduled ones); a write that lands after a compaction, or while one runs, is never lost from a
 * report; a run compacts only the partitions it is given.
 */
import { ManualClock } from '../support/manualClock';
import { compactRollupPeriods, recentPeriods } from '../../functions/src/store/rollups/compaction';
import { compactPartitions } from '../../functions/src/store/rollups/compactionSweep';
import { EVENT_ROLLUPS, EVENT_SHARDS, METRIC, SUBSCRIBER_ROLLUPS, SUBSCRIBER_SHARDS } from '../../functions/src/store/rollups/model';
import { ALL_TIME, hourOf, periodKeys } from '../../functions/src/store/rollups/periods';
import { seriesKey, writeRollupDeltas, type RollupDelta } from '../../functions/src/store/rollups/rollupWrite';
import { shardDocId } from '../../functions/src/store/rollups/shards';
import { subscribersReport } from '../../functions/src/reports/subscribersReport';
import { eventsReport } from '../../functions/src/reports/eventsReport';
import { EnvScope } from '../../functions/src/store/scope';
import { createTestService, seedProject, type TestService } from '../support/harness';
import { DAY_MS, HOUR_MS } from './support';

// Early in a day just after a month and a year turned: ranges cross both.
const NOW = Date.UTC(2027, 0, 2, 5, 30);

/** A deterministic spread of figures over ~80 days around NOW (some scheduled after it), every shard. */
function history(seed: number): { shard: number; delta: RollupDelta; collection: string }[] {
  let state = seed;
  const rand = (n: number) => ((state = (state * 1103515245 + 12345) % 2 ** 31), state % n);
  const out: { shard: number; delta: RollupDelta; collection: string }[] = [];
  for (let i = 0; i < 400; i += 1) {
    const hour = hourOf(NOW - 75 * DAY_MS) + rand(80 * 24);
    out.push({
      collection: SUBSCRIBER_ROLLUPS,
      shard: rand(SUBSCRIBER_SHARDS),
      delta: { metric: METRIC.active, series: seriesKey(`key_${rand(3)}`, ['stripe', 'apple'][rand(2)]), hour, amount: rand(5) - 1, running: true },
    });
    out.push({
      collection: EVENT_ROLLUPS,
      shard: rand(EVENT_SHARDS),
      delta: { metric: [METRIC.events, METRIC.throttled][rand(2)], series: seriesKey(`event_${rand(4)}`), hour: Math.min(hour, hourOf(NOW)), amount: 1 + rand(9), running: false },
    });
  }
  return out;
}

async function write(service: TestService, scope: EnvScope, figures: { shard: number; delta: RollupDelta; collection: string }[]): Promise<void> {
  for (let i = 0; i < figures.length; i += 50) {
    const batch = service.deps.db.batch();
    for (const { collection, shard, delta } of figures.slice(i, i + 50)) writeRollupDeltas(batch, scope, collection, shard, [delta]);
    await batch.commit();
  }
}

/** Every period document the figures touched (day, month, year, all-time). */
function periodsOf(figures: { delta: RollupDelta }[]): string[] {
  const periods = new Set<string>([ALL_TIME]);
  for (const { delta } of figures) {
    const keys = periodKeys(delta.hour);
    periods.add(keys.day).add(keys.month).add(keys.year);
  }
  return [...periods].sort();
}

async function compactAll(scope: EnvScope, periods: string[]): Promise<number> {
  let moved = 0;
  for (let i = 0; i < periods.length; i += 10) {
    const slice = periods.slice(i, i + 10);
    moved += (await compactRollupPeriods(scope, SUBSCRIBER_ROLLUPS, SUBSCRIBER_SHARDS, slice)).figuresMoved;
    moved += (await compactRollupPeriods(scope, EVENT_ROLLUPS, EVENT_SHARDS, slice)).figuresMoved;
  }
  return moved;
}

/** The reports a compaction must not change: 30 days by day, 7 days by hour (crossing the new year), and "now". */
async function reports(scope: EnvScope) {
  const byDay = { from: NOW - 30 * DAY_MS, to: NOW, granularity: 'day' as const };
  const byHour = { from: NOW - 7 * DAY_MS, to: NOW, granularity: 'hour' as const };
  const lastYear = { from: Date.UTC(2026, 10, 20), to: Date.UTC(2026, 11, 31, 23), granularity: 'day' as const };
  return {
    subscribersByDay: await subscribersReport(scope, byDay, NOW),
    subscribersByHour: await subscribersReport(scope, byHour, NOW),
    subscribersLastYear: await subscribersReport(scope, lastYear, NOW),
    eventsByDay: await eventsReport(scope, byDay, NOW),
    eventsByHour: await eventsReport(scope, byHour, NOW),
  };
}

let service: TestService;
beforeAll(() => {
  service = createTestService({ clock: new ManualClock(NOW) });
});

async function seededScope(seed: number): Promise<{ scope: EnvScope; figures: ReturnType<typeof history> }> {
  const project = await seedProject(service);
  const scope = new EnvScope(service.deps.db, project.projectId, 'test');
  const figures = history(seed);
  await write(service, scope, figures);
  return { scope, figures };
}

const exists = async (scope: EnvScope, collection: string, period: string, shard: number) => (await scope.get(scope.doc(collection, shardDocId(period, shard)))).exists;

it('leaves every report unchanged, and empties shards 1…N−1 into shard 0', async () => {
  const { scope, figures } = await seededScope(7);
  const endedHour = hourOf(NOW - 10 * DAY_MS) - 5;
  const onEveryShard = Array.from({ length: EVENT_SHARDS }, (_, s) => ({ collection: EVENT_ROLLUPS, shard: s, delta: { metric: METRIC.events, series: seriesKey('event_0'), hour: endedHour + s, amount: 1, running: false } }));
  await write(service, scope, onEveryShard);
  const before = await reports(scope);
  expect(before.subscribersByDay.series.length).toBeGreaterThan(0);
  const moved = await compactAll(scope, periodsOf([...figures, ...onEveryShard]));
  expect(moved).toBeGreaterThan(0);
  expect(await reports(scope)).toEqual(before);

  // A day that ended keeps its figures in shard 0 only.
  const ended = periodKeys(endedHour).day;
  for (let s = 1; s < EVENT_SHARDS; s += 1) expect(await exists(scope, EVENT_ROLLUPS, ended, s)).toBe(false);
  expect(await exists(scope, EVENT_ROLLUPS, ended, 0)).toBe(true);
  // Today (05:30): an earlier hour, the current one and a scheduled end at 08:00 all move, and count the same.
  const today = periodKeys(hourOf(NOW)).day;
  const scheduled = { collection: SUBSCRIBER_ROLLUPS, shard: 2, delta: { metric: METRIC.active, series: seriesKey('key_today', 'stripe'), hour: hourOf(NOW) + 3, amount: -1, running: true } };
  const thisHour = { ...scheduled, delta: { ...scheduled.delta, hour: hourOf(NOW), amount: 2 } };
  const earlier = { ...scheduled, delta: { ...scheduled.delta, hour: hourOf(NOW) - 2, amount: 4 } };
  await write(service, scope, [scheduled, thisHour, earlier]);
  const withToday = await reports(scope);
  expect(withToday.subscribersByHour.data.find((row) => row.entitlementKey === 'key_today')?.active).toBe(6);
  await compactAll(scope, [today]);
  expect(await reports(scope)).toEqual(withToday);
  expect(await exists(scope, SUBSCRIBER_ROLLUPS, today, 2)).toBe(false);
  const shard0 = (await scope.get(scope.doc(SUBSCRIBER_ROLLUPS, shardDocId(today, 0)))).data() as Record<string, Record<string, Record<string, number>>>;
  expect(shard0[METRIC.active][seriesKey('key_today', 'stripe')]).toEqual({ '03': 4, '05': 2, '08': -1 });
});

it('counts a write that lands after the compaction (late figures of an ended day), and compacts it on the next run', async () => {
  const { scope, figures } = await seededScope(11);
  await compactAll(scope, periodsOf(figures));
  const before = await reports(scope);
  const lateHour = hourOf(NOW - 3 * DAY_MS) + 4;
  const late = [
    { collection: EVENT_ROLLUPS, shard: 5, delta: { metric: METRIC.events, series: seriesKey('event_1'), hour: lateHour, amount: 1000, running: false } },
    { collection: SUBSCRIBER_ROLLUPS, shard: 3, delta: { metric: METRIC.active, series: seriesKey('key_1', 'apple'), hour: lateHour, amount: 100, running: true } },
  ];
  await write(service, scope, late);
  const after = await reports(scope);
  const lateDay = Math.floor((lateHour * HOUR_MS) / DAY_MS) * DAY_MS;
  const events = (body: typeof before.eventsByDay) => body.data.find((row) => row.t === lateDay && row.name === 'event_1')?.count ?? 0;
  expect(events(after.eventsByDay) - events(before.eventsByDay)).toBe(1000);
  const active = (body: typeof before.subscribersByDay) => body.data.find((row) => row.entitlementKey === 'key_1' && row.rail === 'apple')?.active ?? 0;
  expect(active(after.subscribersByDay) - active(before.subscribersByDay)).toBe(100);

  await compactAll(scope, periodsOf(late));
  expect(await exists(scope, EVENT_ROLLUPS, periodKeys(lateHour).day, 5)).toBe(false);
  expect(await reports(scope)).toEqual(after);
});

it('loses no write that lands while a compaction runs', async () => {
  const { scope, figures } = await seededScope(23);
  const before = await reports(scope);
  const racing = Array.from({ length: 24 }, (_, i) => ({
    collection: EVENT_ROLLUPS,
    shard: i % EVENT_SHARDS,
    delta: { metric: METRIC.events, series: seriesKey('event_2'), hour: hourOf(NOW - 2 * DAY_MS) + (i % 20), amount: 1, running: false },
  }));
  const periods = periodsOf([...figures, ...racing]);
  await Promise.all([compactAll(scope, periods), ...racing.map((figure) => write(service, scope, [figure]))]);
  await compactAll(scope, periods);
  const after = await reports(scope);
  const sum = (body: typeof before.eventsByDay) => body.data.filter((row) => row.name === 'event_2').reduce((n, row) => n + row.count, 0);
  expect(sum(after.eventsByDay) - sum(before.eventsByDay)).toBe(24);
  expect(after.subscribersByDay).toEqual(before.subscribersByDay);
});

it('compacts the partitions it is given and no other; an hourly run takes yesterday, today and tomorrow, their months and years, and all-time', async () => {
  const { scope: mine, figures } = await seededScope(31);
  const { scope: other } = await seededScope(31);
  const day = periodKeys(hourOf(NOW - DAY_MS)).day;
  const otherBefore = await Promise.all(Array.from({ length: EVENT_SHARDS }, (_, s) => other.get(other.doc(EVENT_ROLLUPS, shardDocId(day, s)))));
  const report = await compactPartitions([mine], periodsOf(figures), () => undefined);
  expect(report).toMatchObject({ partitions: 1, failed: 0 });
  expect(report.figuresMoved).toBeGreaterThan(0);
  const otherAfter = await Promise.all(Array.from({ length: EVENT_SHARDS }, (_, s) => other.get(other.doc(EVENT_ROLLUPS, shardDocId(day, s)))));
  expect(otherAfter.map((s) => s.data() ?? null)).toEqual(otherBefore.map((s) => s.data() ?? null));
  expect(await reports(mine)).toEqual(await reports(other));

  expect(new Set(recentPeriods(NOW))).toEqual(new Set(['all', 'd20270101', 'd20270102', 'd20270103', 'm202701', 'y2027']));
  expect(new Set(recentPeriods(Date.UTC(2027, 0, 1, 0, 10)))).toEqual(new Set(['all', 'd20261231', 'd20270101', 'd20270102', 'm202612', 'm202701', 'y2026', 'y2027']));
});
