import { createHash } from 'node:crypto';
import type { DocumentReference } from 'firebase-admin/firestore';
import { createKeys } from '#functions/keys/lifecycle';
import { createApp } from '#functions/projects/repository';
import { ERROR_GROUP_SHARDS, ERROR_GROUPS, GROUP_SHARDS, groupShardId, type ErrorGroupDoc } from '#functions/store/rollups/errorGroupModel';
import { EVENT_ROLLUPS, EVENT_SHARDS, METRIC, REVENUE_ROLLUPS, REVENUE_SHARDS, SUBSCRIBER_ROLLUPS, SUBSCRIBER_SHARDS } from '#functions/store/rollups/model';
import { ALL_TIME, hourOf, periodKeys } from '#functions/store/rollups/periods';
import { compactRollupPeriods } from '#functions/store/rollups/compaction';
import { seriesKey, writeRollupDeltas, type RollupDelta } from '#functions/store/rollups/rollupWrite';
import { subscriberDeltas } from '#functions/entitlements/subscriberRollup';
import { EnvScope } from '#functions/store/scope';
import { eventsReport, revenueReport, subscribersReport, type ReportRange } from '#functions/reports/index';
import { storeCallsFloor } from '../sameStoreCalls';
import { commitInBatches, type SeedWrite } from '../../fixtures/rollupSeeding';
import type { BenchContext, BenchRequest, Scenario, ScenarioTarget } from '../scenario';

/**
 * The reports against a large seeded history, each beside a store-only floor reading as many
 * small documents in one `getAll`. The history is written through the rollups' own writer
 * (`writeRollupDeltas`, the change-record deltas of `subscriberDeltas`), aggregated per document
 * before committing, so seeding takes seconds where replaying each change through its request
 * would take hours; the documents a report reads are the same either way.
 *
 * - subscribers: 2 years of entitlement changes, 400 a day (292,000), 10 keys × 4 rails;
 * - revenue: 2 years of payments, 500 a day (365,000; 2% refunded), 3 currencies × 3 rails;
 * - events: 1 year of 40 event names, 20,000 events a day (7.3 million counted);
 * - errors: 3,000 error groups; the detail's sample stack has 6 frames (no maps uploaded);
 * - customers: 10,000 customers, each with an identity and a projection.
 */
const DAY = 86_400_000;
const KEYS = Array.from({ length: 10 }, (_, i) => `key_${i}`);
const RAILS = ['stripe', 'apple', 'google', 'manual'] as const;

/** Collects what writeRollupDeltas would write, merging per document. */
function collector() {
  const sets: SeedWrite[] = [];
  return { sets, writer: { set: (ref: DocumentReference, data: Record<string, unknown>) => sets.push({ ref, data }) } };
}

const scopeOf = (ctx: BenchContext) => new EnvScope(ctx.deps.db, ctx.project.projectId, 'test');
const secretOf = (ctx: BenchContext) => ctx.project.apps.find((app) => app.platform === 'web')!.keys.test.secret;
const pseudo = (n: number) => createHash('sha256').update(String(n)).digest().readUInt32BE(0);

/** `years` of subscriber changes, 400 a day, committed a year at a time (bounded memory). */
async function seedSubscribers(ctx: BenchContext, years = 2): Promise<void> {
  const now = ctx.deps.clock.now();
  let n = 0;
  for (let yearEnd = years * 365; yearEnd >= 0; yearEnd -= 365) {
    const byShard = new Map<number, RollupDelta[]>();
    for (let day = yearEnd; day > Math.max(yearEnd - 365, -1); day -= 1) {
      for (let i = 0; i < 400; i += 1) {
        const changedAt = now - day * DAY + (i % 24) * 3_600_000 - 12 * 3_600_000;
        const r = pseudo((n += 1));
        const entitlement = (end: number | null) => ({ object: 'entitlement' as const, key: KEYS[r % 10], isActive: true, validUntil: end === null ? null : Math.floor(end / 1000), source: { rail: RAILS[(r >>> 4) % 4], productId: 'p', subscriptionId: 's' }, updatedAt: 0 });
        // Mostly new 30-day periods and renewals, some lifetime grants.
        const after = entitlement(r % 10 === 0 ? null : changedAt + 30 * DAY);
        const before = r % 3 === 0 ? entitlement(changedAt + DAY) : null;
        const shard = r % SUBSCRIBER_SHARDS;
        const list = byShard.get(shard) ?? [];
        list.push(...subscriberDeltas({ key: after.key, before, after, changedAt }));
        byShard.set(shard, list);
      }
    }
    const { sets, writer } = collector();
    for (const [shard, deltas] of byShard) writeRollupDeltas(writer, scopeOf(ctx), SUBSCRIBER_ROLLUPS, shard, deltas);
    await commitInBatches(ctx.deps.db, sets);
  }
}

async function seedRevenue(ctx: BenchContext): Promise<void> {
  const now = ctx.deps.clock.now();
  const currencies = ['USD', 'EUR', 'JPY'];
  const byShard = new Map<number, RollupDelta[]>();
  let n = 0;
  for (let day = 730; day >= 0; day -= 1) {
    for (let i = 0; i < 500; i += 1) {
      const at = now - day * DAY - (i % 24) * 3_600_000;
      const r = pseudo((n += 1));
      const currency = currencies[r % 3];
      const rail = RAILS[(r >>> 3) % 3];
      const amount = 999 + (r % 5) * 500;
      const shard = r % REVENUE_SHARDS;
      const deltas: RollupDelta[] = [
        { metric: METRIC.gross, series: seriesKey(currency, rail), hour: hourOf(at), amount, running: false },
        { metric: METRIC.mrr, series: seriesKey(currency), hour: hourOf(at), amount, running: true },
        { metric: METRIC.mrr, series: seriesKey(currency), hour: hourOf(at + 30 * DAY - 1), amount: -amount, running: true },
      ];
      if (r % 50 === 0) deltas.push({ metric: METRIC.refunds, series: seriesKey(currency, rail), hour: hourOf(at + DAY), amount, running: false });
      const list = byShard.get(shard) ?? [];
      list.push(...deltas);
      byShard.set(shard, list);
    }
  }
  const { sets, writer } = collector();
  for (const [shard, deltas] of byShard) writeRollupDeltas(writer, scopeOf(ctx), REVENUE_ROLLUPS, shard, deltas);
  await commitInBatches(ctx.deps.db, sets);
}

async function seedEvents(ctx: BenchContext): Promise<void> {
  const now = ctx.deps.clock.now();
  const names = Array.from({ length: 40 }, (_, i) => `event_name_${i}`);
  const { sets, writer } = collector();
  for (let day = 365; day >= 0; day -= 1) {
    for (let shard = 0; shard < EVENT_SHARDS; shard += 1) {
      // 20,000 events a day over the shards, names and hours.
      const deltas: RollupDelta[] = [];
      for (const [i, name] of names.entries()) {
        for (let h = 0; h < 24; h += 1) deltas.push({ metric: METRIC.events, series: seriesKey(name), hour: hourOf(now - day * DAY) - 23 + h, amount: 2 + ((i + h) % 3), running: false });
      }
      deltas.push({ metric: METRIC.throttled, series: seriesKey('all'), hour: hourOf(now - day * DAY), amount: 10, running: false });
      writeRollupDeltas(writer, scopeOf(ctx), EVENT_ROLLUPS, shard, deltas);
    }
  }
  await commitInBatches(ctx.deps.db, sets);
}

const STACK = ['TypeError: bench failure', ...Array.from({ length: 6 }, (_, i) => `    at fn${i} (https://app.example.com/assets/main.js:1:${100 + i * 37})`)].join('\n');

async function seedErrorGroups(ctx: BenchContext): Promise<string> {
  const scope = scopeOf(ctx);
  const now = ctx.deps.clock.now();
  const sets: SeedWrite[] = [];
  let newest = '';
  for (let g = 0; g < 3000; g += 1) {
    const fingerprint = createHash('sha256').update(`group-${g}`).digest('hex').slice(0, 32);
    const lastSeen = now - (3000 - g) * 60_000;
    const doc: ErrorGroupDoc = {
      fingerprint,
      name: 'js_error',
      type: 'TypeError',
      message: `bench failure ${g}`,
      level: 'error',
      firstSeen: lastSeen - 7 * DAY,
      lastSeen,
      lastRelease: '2.4.0',
      sample: { eventId: `evt-${g}`, timestamp: lastSeen, level: 'error', release: '2.4.0', message: `bench failure ${g}`, stack: STACK, serviceCustomerId: null },
      sampleCustomerId: null,
    };
    sets.push({ ref: scope.doc(ERROR_GROUPS, fingerprint), data: doc as unknown as Record<string, unknown> });
    for (let s = 0; s < GROUP_SHARDS; s += 1) sets.push({ ref: scope.doc(ERROR_GROUP_SHARDS, groupShardId(fingerprint, s)), data: { fingerprint, count: 100 + s, customers: 10 + s } });
    newest = fingerprint;
  }
  await commitInBatches(ctx.deps.db, sets);
  return newest;
}

async function seedCustomers(ctx: BenchContext): Promise<string> {
  const scope = scopeOf(ctx);
  const now = ctx.deps.clock.now();
  const sets: SeedWrite[] = [];
  for (let c = 0; c < 10_000; c += 1) {
    const customerId = `cdcust_bench${String(c).padStart(8, '0')}`;
    sets.push({
      ref: scope.doc('customers', customerId),
      data: { customerId, createdAt: now, updatedAt: now, email: null, traits: {}, identities: [{ kind: 'developer', id: `user-${c}` }], status: 'active' },
    });
    sets.push({
      ref: scope.doc('projections', customerId),
      data: { customerId, updatedAt: now, changeSequence: 1, entitlements: { pro: { key: 'pro', validUntil: now + 30 * DAY, source: { rail: 'stripe', productId: 'prod_pro', subscriptionId: `sub_${c}` }, updatedAt: now } } },
    });
  }
  await commitInBatches(ctx.deps.db, sets);
  // A key that holds the row-level scope (with the acknowledgement), on an app of its own.
  const app = await createApp(ctx.deps.db, { projectId: ctx.project.projectId, platform: 'web', allowedOrigins: ['https://bench.example.com'] }, now);
  return (await createKeys(ctx.deps.db, { appId: app.appId, env: 'test', scopes: ['reporting:identity'], acknowledgeRowLevelData: true }, now)).secret.key;
}

/**
 * Leaves the seeded rollups as the hourly rollup worker would have (store/rollups/compaction.ts):
 * shards 1…N−1 moved into shard 0, for every period a report of the last `days` days reads (each
 * day, every month and year of the history, all-time). Older day documents are not read by these
 * reports, so they are left as written.
 */
async function compactSeeded(ctx: BenchContext, collection: string, shards: number, days: number, years: number): Promise<void> {
  const now = ctx.deps.clock.now();
  const periods = new Set<string>([ALL_TIME]);
  for (let day = 0; day <= days; day += 1) periods.add(periodKeys(hourOf(now - day * DAY)).day);
  for (let day = 0; day <= years * 366; day += 28) {
    const keys = periodKeys(hourOf(now - day * DAY));
    periods.add(keys.month).add(keys.year);
  }
  const list = [...periods];
  for (let i = 0; i < list.length; i += 10) await compactRollupPeriods(scopeOf(ctx), collection, shards, list.slice(i, i + 10));
}

/** The store floor of a report: one `getAll` of as many small documents as the report reads. */
function docsFloor(count: number) {
  return async (ctx: BenchContext) => {
    const root = ctx.deps.db.collection(`bench-store-floor/reports-${count}/docs`);
    const refs = Array.from({ length: count }, (_, i) => root.doc(`d${i}`));
    await commitInBatches(ctx.deps.db, refs.map((ref) => ({ ref, data: { n: 1, hours: { '00': 1, '01': 2 } } })));
    return async () => (await ctx.deps.db.getAll(...refs)).every((s) => s.exists);
  };
}

const get = (path: string, key: string): BenchRequest => ({ method: 'GET', path, headers: { Authorization: `Bearer ${key}` } });

type SeriesService = (scope: EnvScope, range: ReportRange, now: number) => Promise<unknown>;

/**
 * A series report's own store floor: the store calls its request makes (the route's range: the
 * last 30 days by day, or `hourDays` days by hour), replayed from the bench's process on the same
 * data (bench/sameStoreCalls.ts). Issue 23's target is judged against this floor.
 */
function seriesFloor(service: SeriesService, hourDays?: number): Pick<Scenario, 'storeCallsFloor' | 'target'> {
  return {
    target: REPORT_TARGET,
    storeCallsFloor: (ctx) =>
      storeCallsFloor(ctx.deps.db, ctx.project.projectId, secretOf(ctx), (scope) => {
        const now = ctx.deps.clock.now();
        const range: ReportRange = hourDays === undefined ? { from: now - 30 * DAY, to: now, granularity: 'day' } : { from: now - hourDays * DAY, to: now, granularity: 'hour' };
        return service(scope, range, now);
      }),
  };
}

const REPORT_TARGET: ScenarioTarget = { source: 'issue 23', p50VsStoreCalls: 2 };

export const reportScenarios: Scenario[] = [
  // Each "compacted rollups" scenario follows its pair: the same history after the rollup
  // worker's compaction (its steady state). The reader is unchanged, so a pair runs the same code
  // on the two layouts of the same figures.
  {
    name: 'GET /v1/reports/subscribers (2 years, 292k changes; 30 days by day), 4 clients',
    ...seriesFloor(subscribersReport),
    connections: 4,
    unmetered: true, // the report's own cost; the reports bucket (burst 20) would answer most with 429
    note: 'in parallel: masked getAlls by id of the last day (hours), the month documents of the other days (day totals) and the running totals before the range (all-time, year and month documents), 4 shards each',
    prepare: async (ctx) => (await seedSubscribers(ctx), get('/v1/reports/subscribers', secretOf(ctx))),
  },
  {
    name: 'GET /v1/reports/subscribers (2 years; 30 days by day), compacted rollups, 4 clients',
    ...seriesFloor(subscribersReport),
    connections: 4,
    unmetered: true,
    prepare: async (ctx) => (await seedSubscribers(ctx), await compactSeeded(ctx, SUBSCRIBER_ROLLUPS, SUBSCRIBER_SHARDS, 32, 2), get('/v1/reports/subscribers', secretOf(ctx))),
  },
  {
    name: 'GET /v1/reports/subscribers (10× the history: 20 years, 2.9M changes; 30 days by day), 4 clients',
    ...seriesFloor(subscribersReport),
    connections: 4,
    unmetered: true,
    prepare: async (ctx) => (await seedSubscribers(ctx, 20), get('/v1/reports/subscribers', secretOf(ctx))),
  },
  {
    name: 'GET /v1/reports/subscribers (same history; 7 days by hour), 4 clients',
    ...seriesFloor(subscribersReport, 7),
    connections: 4,
    unmetered: true, // the report's own cost; the reports bucket (burst 20) would answer most with 429
    prepare: async (ctx) => (await seedSubscribers(ctx), get(`/v1/reports/subscribers?granularity=hour&from=${ctx.deps.clock.now() - 7 * DAY}`, secretOf(ctx))),
  },
  {
    name: 'GET /v1/reports/subscribers (2 years; 7 days by hour), compacted rollups, 4 clients',
    ...seriesFloor(subscribersReport, 7),
    connections: 4,
    unmetered: true,
    prepare: async (ctx) => (await seedSubscribers(ctx), await compactSeeded(ctx, SUBSCRIBER_ROLLUPS, SUBSCRIBER_SHARDS, 32, 2), get(`/v1/reports/subscribers?granularity=hour&from=${ctx.deps.clock.now() - 7 * DAY}`, secretOf(ctx))),
  },
  {
    name: 'GET /v1/reports/revenue (2 years, 365k payments; 30 days by day), 4 clients',
    ...seriesFloor(revenueReport),
    connections: 4,
    unmetered: true, // the report's own cost; the reports bucket (burst 20) would answer most with 429
    prepare: async (ctx) => (await seedRevenue(ctx), get('/v1/reports/revenue', secretOf(ctx))),
  },
  {
    name: 'GET /v1/reports/revenue (2 years; 30 days by day), compacted rollups, 4 clients',
    ...seriesFloor(revenueReport),
    connections: 4,
    unmetered: true,
    prepare: async (ctx) => (await seedRevenue(ctx), await compactSeeded(ctx, REVENUE_ROLLUPS, REVENUE_SHARDS, 32, 2), get('/v1/reports/revenue', secretOf(ctx))),
  },
  {
    name: 'GET /v1/reports/events (1 year, 7.3M events, 40 names; 30 days by day), 4 clients',
    ...seriesFloor(eventsReport),
    connections: 4,
    unmetered: true, // the report's own cost; the reports bucket (burst 20) would answer most with 429
    prepare: async (ctx) => (await seedEvents(ctx), get('/v1/reports/events', secretOf(ctx))),
  },
  {
    name: 'GET /v1/reports/events (1 year; 30 days by day), compacted rollups, 4 clients',
    ...seriesFloor(eventsReport),
    connections: 4,
    unmetered: true,
    prepare: async (ctx) => (await seedEvents(ctx), await compactSeeded(ctx, EVENT_ROLLUPS, EVENT_SHARDS, 32, 1), get('/v1/reports/events', secretOf(ctx))),
  },
  {
    name: 'GET /v1/reports/errors (3,000 groups; first page of 20), 4 clients',
    connections: 4,
    unmetered: true, // the report's own cost; the reports bucket (burst 20) would answer most with 429
    prepare: async (ctx) => (await seedErrorGroups(ctx), get('/v1/reports/errors', secretOf(ctx))),
  },
  {
    name: 'GET /v1/reports/errors/{fingerprint} (3,000 groups; 6-frame stack, release without maps), 4 clients',
    connections: 4,
    unmetered: true, // the report's own cost; the reports bucket (burst 20) would answer most with 429
    prepare: async (ctx) => get(`/v1/reports/errors/${await seedErrorGroups(ctx)}`, secretOf(ctx)),
  },
  {
    name: 'GET /v1/reports/customers (10,000 customers; page of 20), 4 clients',
    target: { source: 'issue 23', p50Ms: 30 },
    connections: 4,
    unmetered: true, // the report's own cost; the reports bucket (burst 20) would answer most with 429
    prepare: async (ctx) => get('/v1/reports/customers', await seedCustomers(ctx)),
  },
  ...[25, 125, 250].map(
    (count): Scenario => ({
      name: `store floor for the reports: one getAll of ${count} small documents, 4 clients sending 20/s each`,
      storeOperation: docsFloor(count),
      paced: { clients: 4, perClientPerSecond: 20 },
    }),
  ),
];
