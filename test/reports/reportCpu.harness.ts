/**
 * Measuring harness (not a suite: `*.harness.ts` is outside jest's testMatch and never runs in
 * `npm test`): where a series report's CPU goes, in-process, on the bench's histories
 * (bench/scenarios/reports.ts: subscribers 2 years × 400 changes a day over 10 keys × 4 rails,
 * revenue 2 years × 500 payments a day, events 1 year × 40 names), as written and compacted.
 * For each report, ROUNDS alternating rounds of:
 *
 * - floor: the report's own store calls (recorded from one run: same documents, same masks,
 *   all in parallel), each snapshot decoded with `data()`;
 * - service: the report service (reads, decoding, series), as the route calls it;
 * - JSON: `JSON.stringify` of its answer (what the route sends).
 *
 * Prints CPU ms (process.cpuUsage, user + system) and wall ms medians, documents read and the
 * answer's bytes. Asserts nothing about time.
 *
 *   npx jest --runInBand --testMatch '<rootDir>/test/reports/reportCpu.harness.ts' test/reports/reportCpu.harness.ts
 *
 * HARNESS_PROFILE=file.cpuprofile: a V8 CPU profile of the measured rounds. HARNESS_ONLY=text:
 * only the reports whose label contains it (and only their histories are seeded); HARNESS_LAYOUT=compacted
 * or `as written`: one layout only; HARNESS_ANSWERS=dir: the answers as JSON files (to diff two versions). Written against the services' signatures only, so
 * older code (git archive of main, this file copied in) runs it unchanged for paired figures.
 */
import { writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { startProfiler } from '../../fixtures/inProcessProfiler';
import { commitInBatches, recordingMaskedReads, type SeedWrite } from '../../fixtures/rollupSeeding';
import type { DocumentReference } from 'firebase-admin/firestore';
import { eventsReport } from '../../functions/src/reports/eventsReport';
import { revenueReport } from '../../functions/src/reports/revenueReport';
import { subscribersReport } from '../../functions/src/reports/subscribersReport';
import type { ReportRange } from '../../functions/src/reports/range';
import { compactRollupPeriods } from '../../functions/src/store/rollups/compaction';
import { EVENT_ROLLUPS, EVENT_SHARDS, METRIC, REVENUE_ROLLUPS, REVENUE_SHARDS, SUBSCRIBER_ROLLUPS, SUBSCRIBER_SHARDS } from '../../functions/src/store/rollups/model';
import { ALL_TIME, hourOf, periodKeys } from '../../functions/src/store/rollups/periods';
import { seriesKey, writeRollupDeltas, type RollupDelta } from '../../functions/src/store/rollups/rollupWrite';
import { subscriberDeltas } from '../../functions/src/entitlements/subscriberRollup';
import { EnvScope } from '../../functions/src/store/scope';
import { createTestService, seedProject, type TestService } from '../support/harness';
import { ManualClock } from '../support/manualClock';
import { DAY_MS, HOUR_MS } from './support';

jest.setTimeout(30 * 60_000);
const ROUNDS = Number(process.env.HARNESS_ROUNDS ?? 30);
const WARM_UP = 5;
const NOW = Date.UTC(2026, 10, 26, 2, 17, 0);
const KEYS = Array.from({ length: 10 }, (_, i) => `key_${i}`);
const RAILS = ['stripe', 'apple', 'google', 'manual'] as const;
const pseudo = (n: number) => createHash('sha256').update(String(n)).digest().readUInt32BE(0);


function collect(scope: EnvScope, collection: string, byShard: Map<number, RollupDelta[]>): SeedWrite[] {
  const sets: SeedWrite[] = [];
  const writer = { set: (ref: DocumentReference, data: Record<string, unknown>) => sets.push({ ref, data }) };
  for (const [shard, deltas] of byShard) writeRollupDeltas(writer, scope, collection, shard, deltas);
  return sets;
}

function push(byShard: Map<number, RollupDelta[]>, shard: number, deltas: RollupDelta[]): void {
  const list = byShard.get(shard) ?? [];
  list.push(...deltas);
  byShard.set(shard, list);
}

async function seedSubscribers(service: TestService, scope: EnvScope): Promise<void> {
  let n = 0;
  for (let yearEnd = 2 * 365; yearEnd >= 0; yearEnd -= 365) {
    const byShard = new Map<number, RollupDelta[]>();
    for (let day = yearEnd; day > Math.max(yearEnd - 365, -1); day -= 1) {
      for (let i = 0; i < 400; i += 1) {
        const changedAt = NOW - day * DAY_MS + (i % 24) * HOUR_MS - 12 * HOUR_MS;
        const r = pseudo((n += 1));
        const entitlement = (end: number | null) => ({ object: 'entitlement' as const, key: KEYS[r % 10], isActive: true, validUntil: end === null ? null : Math.floor(end / 1000), source: { rail: RAILS[(r >>> 4) % 4], productId: 'p', subscriptionId: 's' }, updatedAt: 0 });
        const after = entitlement(r % 10 === 0 ? null : changedAt + 30 * DAY_MS);
        const before = r % 3 === 0 ? entitlement(changedAt + DAY_MS) : null;
        push(byShard, r % SUBSCRIBER_SHARDS, subscriberDeltas({ key: after.key, before, after, changedAt }));
      }
    }
    await commitInBatches(service.deps.db, collect(scope, SUBSCRIBER_ROLLUPS, byShard));
  }
}

async function seedRevenue(service: TestService, scope: EnvScope): Promise<void> {
  const byShard = new Map<number, RollupDelta[]>();
  let n = 0;
  for (let day = 730; day >= 0; day -= 1) {
    for (let i = 0; i < 500; i += 1) {
      const at = NOW - day * DAY_MS - (i % 24) * HOUR_MS;
      const r = pseudo((n += 1));
      const currency = ['USD', 'EUR', 'JPY'][r % 3];
      const rail = RAILS[(r >>> 3) % 3];
      const amount = 999 + (r % 5) * 500;
      const deltas: RollupDelta[] = [
        { metric: METRIC.gross, series: seriesKey(currency, rail), hour: hourOf(at), amount, running: false },
        { metric: METRIC.mrr, series: seriesKey(currency), hour: hourOf(at), amount, running: true },
        { metric: METRIC.mrr, series: seriesKey(currency), hour: hourOf(at + 30 * DAY_MS - 1), amount: -amount, running: true },
      ];
      if (r % 50 === 0) deltas.push({ metric: METRIC.refunds, series: seriesKey(currency, rail), hour: hourOf(at + DAY_MS), amount, running: false });
      push(byShard, r % REVENUE_SHARDS, deltas);
    }
  }
  await commitInBatches(service.deps.db, collect(scope, REVENUE_ROLLUPS, byShard));
}

async function seedEvents(service: TestService, scope: EnvScope): Promise<void> {
  const names = Array.from({ length: 40 }, (_, i) => `event_name_${i}`);
  const byShard = new Map<number, RollupDelta[]>();
  for (let day = 365; day >= 0; day -= 1) {
    for (let shard = 0; shard < EVENT_SHARDS; shard += 1) {
      const deltas: RollupDelta[] = [];
      for (const [i, name] of names.entries()) {
        for (let h = 0; h < 24; h += 1) deltas.push({ metric: METRIC.events, series: seriesKey(name), hour: hourOf(NOW - day * DAY_MS) - 23 + h, amount: 2 + ((i + h) % 3), running: false });
      }
      deltas.push({ metric: METRIC.throttled, series: seriesKey('all'), hour: hourOf(NOW - day * DAY_MS), amount: 10, running: false });
      push(byShard, shard, deltas);
    }
  }
  await commitInBatches(service.deps.db, collect(scope, EVENT_ROLLUPS, byShard));
}

/** As the rollup worker leaves them (bench/scenarios/reports.ts `compactSeeded`). */
async function compact(scope: EnvScope, collection: string, shards: number, years: number): Promise<void> {
  const periods = new Set<string>([ALL_TIME]);
  for (let day = 0; day <= 32; day += 1) periods.add(periodKeys(hourOf(NOW - day * DAY_MS)).day);
  for (let day = 0; day <= years * 366; day += 28) {
    const keys = periodKeys(hourOf(NOW - day * DAY_MS));
    periods.add(keys.month).add(keys.year);
  }
  const list = [...periods];
  for (let i = 0; i < list.length; i += 10) await compactRollupPeriods(scope, collection, shards, list.slice(i, i + 10));
}



const RecordingScope = recordingMaskedReads(EnvScope);

async function measured<T>(run: () => Promise<T>): Promise<{ value: T; cpu: number; wall: number }> {
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const value = await run();
  const used = process.cpuUsage(cpuBefore);
  return { value, cpu: (used.user + used.system) / 1000, wall: performance.now() - wallBefore };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

type Service = (scope: EnvScope, range: ReportRange, now: number) => Promise<unknown>;

it('measures where the series reports spend their CPU', async () => {
  const byDay: ReportRange = { from: NOW - 30 * DAY_MS, to: NOW, granularity: 'day' };
  const byHour: ReportRange = { from: NOW - 7 * DAY_MS, to: NOW, granularity: 'hour' };
  const reports = (
    [
      ['subscribers, 30 days by day', subscribersReport, byDay],
      ['subscribers, 7 days by hour', subscribersReport, byHour],
      ['revenue, 30 days by day', revenueReport, byDay],
      ['events, 30 days by day', eventsReport, byDay],
      ['events, 7 days by hour', eventsReport, byHour],
    ] as [string, Service, ReportRange][]
  ).filter(([label]) => !process.env.HARNESS_ONLY || label.includes(process.env.HARNESS_ONLY));
  const needs = (what: string) => reports.some(([label]) => label.startsWith(what));
  const service = createTestService({ clock: new ManualClock(NOW) });
  const scopes: Record<string, EnvScope> = {};
  // HARNESS_LAYOUT=compacted (or `as written`): one layout only.
  for (const layout of ['as written', 'compacted'].filter((l) => !process.env.HARNESS_LAYOUT || l === process.env.HARNESS_LAYOUT)) {
    const project = await seedProject(service);
    const scope = new EnvScope(service.deps.db, project.projectId, 'test');
    if (needs('subscribers')) await seedSubscribers(service, scope);
    if (needs('revenue')) await seedRevenue(service, scope);
    if (needs('events')) await seedEvents(service, scope);
    if (layout === 'compacted') {
      if (needs('subscribers')) await compact(scope, SUBSCRIBER_ROLLUPS, SUBSCRIBER_SHARDS, 2);
      if (needs('revenue')) await compact(scope, REVENUE_ROLLUPS, REVENUE_SHARDS, 2);
      if (needs('events')) await compact(scope, EVENT_ROLLUPS, EVENT_SHARDS, 1);
    }
    scopes[layout] = scope;
  }
  const profiler = process.env.HARNESS_PROFILE ? await startProfiler() : null;
  const lines: string[] = ['| report (layout) | documents | answer bytes | floor CPU / wall ms | service CPU / wall ms | JSON CPU ms |', '|---|---|---|---|---|---|'];
  for (const [label, report, range] of reports) {
    for (const [layout, scope] of Object.entries(scopes)) {
      const recorder = new RecordingScope(service.deps.db, scope.projectId, scope.env);
      const answer = await report(recorder, range, NOW);
      // HARNESS_ANSWERS=dir: each answer as JSON, to diff the answers of two versions of the code.
      if (process.env.HARNESS_ANSWERS) writeFileSync(`${process.env.HARNESS_ANSWERS}/${label} (${layout}).json`, JSON.stringify(answer));
      const db = service.deps.db;
      const floor = () => Promise.all(recorder.reads.map((read) => (read.mask.length > 0 ? db.getAll(...read.refs, { fieldMask: read.mask }) : db.getAll(...read.refs)))).then((all) => all.flat().forEach((s) => s.data()));
      const figures = { floorCpu: [] as number[], floorWall: [] as number[], cpu: [] as number[], wall: [] as number[], json: [] as number[] };
      for (let round = 0; round < WARM_UP + ROUNDS; round += 1) {
        const f = await measured(floor);
        const s = await measured(() => report(scope, range, NOW));
        const j = await measured(async () => JSON.stringify(s.value));
        if (round < WARM_UP) continue;
        figures.floorCpu.push(f.cpu);
        figures.floorWall.push(f.wall);
        figures.cpu.push(s.cpu);
        figures.wall.push(s.wall);
        figures.json.push(j.cpu);
        expect(s.value).toEqual(answer);
      }
      const documents = recorder.reads.reduce((sum, read) => sum + read.refs.length, 0);
      lines.push(
        `| ${label} (${layout}) | ${documents} | ${JSON.stringify(answer).length} | ${median(figures.floorCpu).toFixed(1)} / ${median(figures.floorWall).toFixed(1)} | ${median(figures.cpu).toFixed(1)} / ${median(figures.wall).toFixed(1)} | ${median(figures.json).toFixed(2)} |`,
      );
    }
  }
  if (profiler) writeFileSync(process.env.HARNESS_PROFILE as string, JSON.stringify(await profiler.stop()));
  process.stdout.write(`\n${lines.join('\n')}\n(${ROUNDS} rounds, medians)\n`);
});
