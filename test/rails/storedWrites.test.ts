/**
 * Issue 23 (store work per rail notification): what a new subscriber's notification writes,
 * exactly — each document once, by collection — and the index entries Firestore keeps for what
 * it wrote (production write cost: the emulator keeps none). Documents only ever read by id
 * (subscription records, revenue claims, rollups) and the audit fields no query filters on are
 * exempt from indexing in firestore.indexes.json; the audit entry keeps `customerId` and
 * `processedAt` (the customer history: `customerId ==`, newest first).
 */
import type { DocumentData } from 'firebase-admin/firestore';
import { REVENUE_ROLLUPS, SUBSCRIBER_ROLLUPS, EVENT_ROLLUPS, METRIC } from '../../functions/src/store/rollups/model';
import { dayTotalsField, monthTotalsField, yearTotalsField } from '../../functions/src/store/rollups/rollupWrite';
import { recordStoreCalls } from '../../fixtures/storeCallRecorder';
import { indexEntries, readIndexConfig } from '../support/indexEntries';
import { nextPurchaseToken, playPurchase, pushBody } from './support/googleFake';
import { signedNotification, transactionPayload } from './support/applePayloads';
import { stripeEvent, stripeIds, stripeSubscription } from './support/stripeFake';
import { createRailsWorld, PLAY_PACKAGE, postApple, postGoogle, postStripe, type RailsWorld } from './support/railsWorld';

let world: RailsWorld;
beforeAll(async () => {
  world = await createRailsWorld();
});
afterAll(async () => {
  await world.stop();
});

interface CommitWrite {
  update?: { name: string };
  updateMask?: { fieldPaths?: string[] };
}

/**
 * The document paths the request's commits wrote (the fan-out task's own `fannedOutAt` update left
 * out: it is the task's), recorded at the client's RPC edge (fixtures/storeCallRecorder.ts). The
 * earlier tests' background work finishes first: the partition's first fan-out builds its webhook
 * directory, and that write must not land in this request's count.
 */
async function writesOf(send: () => Promise<{ status: number; body: Record<string, unknown> }>): Promise<{ body: Record<string, unknown>; paths: string[] }> {
  await world.service.tasks.drain();
  const { value: res, calls } = await recordStoreCalls(world.service.deps.db, send);
  expect(res.status).toBe(200);
  const writes = calls.filter((call) => call.method === 'commit').flatMap((call) => (call.request.writes ?? []) as CommitWrite[]);
  const fanOutUpdate = (write: CommitWrite) => write.updateMask?.fieldPaths?.length === 1 && write.updateMask.fieldPaths[0] === 'fannedOutAt';
  const paths = writes.filter((write) => write.update && !fanOutUpdate(write)).map((write) => write.update!.name.replace(/^.*\/documents\//, ''));
  return { body: res.body, paths };
}

const collectionOf = (path: string) => path.split('/').slice(-2)[0];

/** Documents written per collection, and Firestore's index entries for them as stored now. */
async function profile(paths: string[]): Promise<{ documents: Record<string, number>; entries: Record<string, number>; total: number }> {
  const config = readIndexConfig();
  const documents: Record<string, number> = {};
  const entries: Record<string, number> = {};
  let total = 0;
  for (const path of paths) {
    const group = collectionOf(path);
    const stored = (await world.service.deps.db.doc(path).get()).data() as DocumentData;
    const count = indexEntries(stored, config, group);
    documents[group] = (documents[group] ?? 0) + 1;
    entries[group] = (entries[group] ?? 0) + count;
    total += count;
  }
  return { documents, entries, total };
}

/** What every new subscriber's notification writes, whatever the rail. */
const NEW_SUBSCRIBER_DOCUMENTS = { identityIndex: 1, customers: 1, grants: 1, projections: 1, entitlementChanges: 1, webhookEvents: 1, reportSubscribers: 5, subscriptions: 1, audit: 1 };
/** Read by id only: no index entry at all. */
const UNINDEXED = ['subscriptions', 'revenueClaims', 'reportSubscribers', 'reportRevenue'];
/** The audit entry: `customerId` and `processedAt` (ascending and descending each) and the customer history's composite index. */
const AUDIT_ENTRIES = 5;
/**
 * The rest of the entitlement write, indexed only where a query needs it: a grant by `customerId`
 * (the projection's rebuild), a projection by `listFacets` and `nextExpiryAt` (the customers
 * report, the expiry sweep), a webhook event by `eventId`, `fannedOutAt` and `createdAt` (the
 * event lookup, the relay); a change record is read by id only.
 */
const ENTITLEMENT_WRITE_ENTRIES = { grants: 2, projections: 5, entitlementChanges: 0, webhookEvents: 8 };

let tick = 0;
const later = () => world.service.clock.now() + (tick += 1000);

/** A new subscriber applied, each document written once, exactly `documents`, and 46 index entries (none in the unindexed groups). */
async function expectNewSubscriberWrites(body: unknown, paths: string[], documents: Record<string, number>): Promise<void> {
  expect(body).toMatchObject({ decision: 'applied', reason: 'created_active', duplicate: false });
  expect(new Set(paths).size).toBe(paths.length);
  const profiled = await profile(paths);
  expect(profiled.documents).toEqual(documents);
  for (const group of UNINDEXED) expect([group, profiled.entries[group] ?? 0]).toEqual([group, 0]);
  expect(profiled.entries.audit).toBe(AUDIT_ENTRIES);
  for (const [group, entries] of Object.entries(ENTITLEMENT_WRITE_ENTRIES)) expect([group, profiled.entries[group] ?? 0]).toEqual([group, entries]);
  expect(profiled.total).toBe(46);
}

describe('a new subscriber’s notification: documents written and their index entries', () => {
  it('Stripe: 13 documents, each written once; 46 index entries', async () => {
    const sub = stripeSubscription({ id: stripeIds.subscription(), customer: stripeIds.customer() });
    world.stripe.subscriptions.set(sub.id as string, sub);
    const { body, paths } = await writesOf(() => postStripe(world, stripeEvent('customer.subscription.created', sub, { created: Math.floor(later() / 1000) })));
    await expectNewSubscriberWrites(body, paths, NEW_SUBSCRIBER_DOCUMENTS);
  });

  it('App Store (the transaction carries a price: a revenue claim and its rollups): 19 documents, each written once; 46 index entries', async () => {
    const { body, paths } = await writesOf(() =>
      postApple(world, signedNotification(world.apple, { notificationType: 'SUBSCRIBED', subtype: 'INITIAL_BUY', transaction: transactionPayload(), status: 1, signedDate: later() }).signedPayload),
    );
    await expectNewSubscriberWrites(body, paths, { ...NEW_SUBSCRIBER_DOCUMENTS, revenueClaims: 1, reportRevenue: 5 });
  });

  it('Play: 13 documents, each written once; 46 index entries', async () => {
    const token = nextPurchaseToken();
    world.google.purchases.set(token, playPurchase({}));
    const notification = { version: '1.0', packageName: PLAY_PACKAGE, eventTimeMillis: String(later()), subscriptionNotification: { version: '1.0', notificationType: 4, purchaseToken: token, subscriptionId: 'pro_monthly' } };
    const { body, paths } = await writesOf(async () => postGoogle(world, pushBody(notification), await world.google.pushToken({ audience: world.pushAudience })));
    await expectNewSubscriberWrites(body, paths, NEW_SUBSCRIBER_DOCUMENTS);
  });
});

describe('firestore.indexes.json: rollup documents are read by id only', () => {
  it('exempts every field the rollup writer produces (the metric, its day totals and, for running figures, month and year totals)', () => {
    const exempt = new Set(readIndexConfig().fieldOverrides.filter((o) => o.indexes.length === 0).map((o) => `${o.collectionGroup}.${o.fieldPath}`));
    const fields = (collection: string, metric: string, running: boolean) =>
      [metric, dayTotalsField(metric), ...(running ? [monthTotalsField(metric), yearTotalsField(metric)] : [])].map((field) => `${collection}.${field}`);
    const written = [
      ...fields(SUBSCRIBER_ROLLUPS, METRIC.active, true),
      ...fields(REVENUE_ROLLUPS, METRIC.gross, false),
      ...fields(REVENUE_ROLLUPS, METRIC.refunds, false),
      ...fields(REVENUE_ROLLUPS, METRIC.mrr, true),
      ...fields(EVENT_ROLLUPS, METRIC.events, false),
      ...fields(EVENT_ROLLUPS, METRIC.throttled, false),
      ...fields(EVENT_ROLLUPS, METRIC.dropped, false),
    ];
    expect(written.filter((field) => !exempt.has(field))).toEqual([]);
  });
});
