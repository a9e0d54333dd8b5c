/**
 * The rails' own store floor in the bench (bench/railFloor.ts): a notification's store calls
 * recorded at the Firestore client's RPC edge (fixtures/storeCallRecorder.ts) and replayed with
 * fresh ids for what it creates, transactions as transactions (fixtures/storeCallReplay.ts).
 * The recorder's shape against the emulator and a real notification, the id freshening, the
 * plan's refusals, and a replay creating its documents anew.
 */
import { FieldValue } from 'firebase-admin/firestore';
import { EnvScope } from '../../functions/src/store/scope';
import { InProcessTaskQueue } from '../../functions/src/tasks/inProcessQueue';
import type { EnqueueResult } from '../../functions/src/tasks/queue';
import { documentsOf, encodedWriteBytes, kindOf, recordStoreCalls, shapeOf, type RecordedCall } from '../../fixtures/storeCallRecorder';
import { freshened, freshIds, replay, replayPlan, shardChoices, variableIds } from '../../fixtures/storeCallReplay';
import { stripeEvent, stripeIds, stripeSubscription } from './support/stripeFake';
import { createRailsWorld, postStripe, type RailsWorld } from './support/railsWorld';

/**
 * Accepts every task without running it (as the bench server's Cloud Tasks adapter hands them to
 * another process): a task's store calls are not the request's, and must not land in a recording.
 */
class HeldQueue extends InProcessTaskQueue {
  override async enqueue(): Promise<EnqueueResult> {
    return 'enqueued';
  }
}

let world: RailsWorld;
beforeAll(async () => {
  world = await createRailsWorld({ settings: { exposeRoundTrips: true }, tasks: new HeldQueue() });
});
afterAll(async () => {
  await world.stop();
});

const db = () => world.service.deps.db;
let serial = 0;
const madeUp = (prefix: string) => `${prefix}${Date.now().toString(36)}x${(serial += 1).toString().padStart(4, '0')}`;

/** A "new subscriber" in miniature: a read of what does not exist yet, a transaction creating two documents under a made-up id, then a batch. */
async function newThing(scope: EnvScope, id: string): Promise<void> {
  await scope.getAll(scope.doc('floorIndex', `key_${id}`));
  await scope.runTransaction(async (tx) => {
    await tx.getAll(scope.doc('floorThings', id), scope.doc('floorCatalog', 'fixed'));
    tx.create(scope.doc('floorThings', id), { id, owner: `floorThings/${id}`, n: 1 });
    tx.set(scope.doc('floorTotals', 'all'), { count: FieldValue.increment(1) }, { merge: true });
  });
  const batch = scope.batch();
  batch.set(scope.doc('floorIndex', `key_${id}`), { thing: id });
  await scope.commit(batch);
}

describe('store calls recorded at the Firestore client', () => {
  it('records each RPC in order with its kind, documents and what it waited for, and restores the client', async () => {
    const scope = world.scope('test');
    const id = madeUp('thing');
    const { calls } = await recordStoreCalls(db(), () => newThing(scope, id));
    expect(calls.map(kindOf)).toEqual(['getAll', 'transaction read', 'transaction commit', 'commit']);
    const short = (call: RecordedCall) => documentsOf(call).map((name) => name.replace(/^.*\/envs\/test\//, ''));
    expect(calls.map(short)).toEqual([[`floorIndex/key_${id}`], [`floorThings/${id}`, 'floorCatalog/fixed'], [`floorThings/${id}`, 'floorTotals/all'], [`floorIndex/key_${id}`]]);
    // Sequential code: each call started after every earlier one had finished.
    expect(calls.map((call) => call.after)).toEqual([[], [0], [0, 1], [0, 1, 2]]);
    expect(Object.prototype.hasOwnProperty.call(db(), 'request')).toBe(false);
    expect(Object.prototype.hasOwnProperty.call(db(), 'requestStream')).toBe(false);

    const parallel = await recordStoreCalls(db(), () => Promise.all([scope.getAll(scope.doc('floorIndex', 'a')), scope.getAll(scope.doc('floorIndex', 'b'))]));
    expect(parallel.calls.map((call) => call.after)).toEqual([[], []]);
  });

  it('measures a write by its encoded bytes: a field 1,000 characters longer weighs 1,000 bytes more', async () => {
    const scope = world.scope('test');
    const write = async (text: string) => {
      const { calls } = await recordStoreCalls(db(), async () => {
        const batch = scope.batch();
        batch.set(scope.doc('floorBytes', 'one'), { text });
        await scope.commit(batch);
      });
      return shapeOf(calls[0]).writeBytes;
    };
    const [short, long] = [await write('a'), await write(`a${'x'.repeat(1000)}`)];
    expect(short).toBeGreaterThan(scope.rootPath.length);
    expect(long - short).toBeGreaterThanOrEqual(1000);
    expect(long - short).toBeLessThanOrEqual(1005); // the enclosing messages' length prefixes grow by a byte each
    expect(encodedWriteBytes({ delete: 'projects/p/databases/(default)/documents/a/b' })).toBe(2 + 'projects/p/databases/(default)/documents/a/b'.length);
  });

  it('a real new-subscriber notification: as many RPCs as the store edge counted, every one replayable', async () => {
    const sub = stripeSubscription({ id: stripeIds.subscription(), customer: stripeIds.customer() });
    world.stripe.subscriptions.set(sub.id as string, sub);
    const { value, calls } = await recordStoreCalls(db(), () => postStripe(world, stripeEvent('customer.subscription.created', sub)));
    expect(value.body).toMatchObject({ decision: 'applied', duplicate: false });
    expect(calls).toHaveLength(Number(value.headers['x-tessera-round-trips']));
    expect(calls.map(kindOf)).toContain('transaction commit');
    // Every document the notification writes (test/rails/storedWrites.test.ts: 13 for a new Stripe subscriber), each once.
    const written = calls.filter((call) => call.method === 'commit').flatMap(documentsOf);
    expect(written).toHaveLength(13);
    expect(new Set(written).size).toBe(13);
  });
});

describe('fresh ids', () => {
  const call = (documents: string[]): RecordedCall => ({ method: 'batchGetDocuments', streaming: true, request: { database: 'd', documents }, after: [] });
  const name = (path: string) => `projects/p/databases/(default)/documents/${path}`;

  it('are the segments two recordings do not share', () => {
    const first = [call([name('things/abc123'), name('totals/all')]), call([name('index/key_abc123')])];
    const second = [call([name('things/def456'), name('totals/all')]), call([name('index/key_def456')])];
    expect(variableIds(first, second).sort()).toEqual(['abc123', 'key_abc123']);
  });

  it('leave shards of sharded collections out: a replay picks one at random per writer, keeping a writer on one shard', () => {
    const sharded = new Map([['rollups', 4]]);
    const first = [call([name('things/abc123'), name('rollups/d20261126_3'), name('rollups/m202611_3'), name('other/x_1')])];
    const second = [call([name('things/def456'), name('rollups/d20261126_1'), name('rollups/m202611_1'), name('other/x_2')])];
    expect(variableIds(first, second, sharded).sort()).toEqual(['abc123', 'x_1']);
    const plan = replayPlan(first, second, sharded);
    expect([...plan.shards.keys()]).toEqual(['d20261126_3', 'm202611_3']);
    expect(Object.fromEntries(shardChoices(plan, () => 0.5))).toEqual({ d20261126_3: 'd20261126_2', m202611_3: 'm202611_2' });
    expect(Object.fromEntries(shardChoices(plan, () => 0.99))).toEqual({ d20261126_3: 'd20261126_3', m202611_3: 'm202611_3' });
    const seen = new Set(Array.from({ length: 200 }, () => shardChoices(plan).get('d20261126_3')));
    expect([...seen].sort()).toEqual(['d20261126_0', 'd20261126_1', 'd20261126_2', 'd20261126_3']);
  });

  it('refuses recordings of different shapes', () => {
    const one = [call([name('things/a')])];
    expect(() => variableIds(one, [...one, ...one])).toThrow(/1 and 2 store calls/);
    expect(() => variableIds(one, [call([name('things/a'), name('things/b')])])).toThrow(/1 and 2 documents/);
    expect(() => variableIds(one, [call([name('things/a/more/b')])])).toThrow(/differ at call 1/);
    expect(() => variableIds([{ ...one[0], method: 'listDocuments' }], one)).toThrow(/not one a floor replays/);
  });

  it('replace whole segments in names, string values and map keys, keeping lengths, bytes and everything else', () => {
    const fresh = freshIds(['abc123', 'key_abc123'], 7);
    expect([...fresh.values()].map((id) => id.length)).toEqual([6, 10]);
    expect(fresh.get('abc123')).not.toBe('abc123');
    expect(freshIds(['abc123'], 8).get('abc123')).not.toBe(fresh.get('abc123'));
    const bytes = Buffer.from('abc123');
    const copy = freshened(
      { name: name('things/abc123'), fields: { id: { stringValue: 'abc123' }, note: { stringValue: 'not abc123' }, map: { mapValue: { fields: { abc123: { integerValue: '123' } } } }, raw: { bytesValue: bytes } } },
      fresh,
    );
    const id = fresh.get('abc123')!;
    expect(copy).toEqual({ name: name(`things/${id}`), fields: { id: { stringValue: id }, note: { stringValue: 'not abc123' }, map: { mapValue: { fields: { [id]: { integerValue: '123' } } } }, raw: { bytesValue: bytes } } });
    expect(copy.fields.raw.bytesValue).toBe(bytes);
  });
});

describe('the replay', () => {
  it('refuses a transaction id it cannot attribute, and a transaction waiting on a call started after it', () => {
    const read = (request: Record<string, unknown>, after: number[] = []): RecordedCall => ({ method: 'batchGetDocuments', streaming: true, request: { documents: ['projects/p/databases/(default)/documents/a/b'], ...request }, after });
    const twoOpen = [read({ newTransaction: {} }), read({ newTransaction: {} }), read({ transaction: Buffer.from('t1') })];
    expect(() => replayPlan(twoOpen, twoOpen)).toThrow(/2 transactions open/);
    const interleaved = [read({ newTransaction: {} }), read({}, [0]), read({ transaction: Buffer.from('t1') }, [0, 1])];
    expect(() => replayPlan(interleaved, interleaved)).toThrow(/not replayable as one unit/);
  });

  it('creates the recorded documents anew under fresh ids, in a transaction where the code used one', async () => {
    const scope = world.scope('test');
    const [a, b] = [madeUp('thing'), madeUp('thing')];
    const first = await recordStoreCalls(db(), () => newThing(scope, a));
    const second = await recordStoreCalls(db(), () => newThing(scope, b));
    const plan = replayPlan(first.calls, second.calls);
    expect(plan.calls).toBe(4);
    const countOf = async () => (await scope.collection('floorThings').get()).size;
    const totalOf = async () => (await scope.doc('floorTotals', 'all').get()).get('count') as number;
    const [things, total] = [await countOf(), await totalOf()];

    const replayed = await recordStoreCalls(db(), async () => {
      await replay(db(), plan, 1);
      await replay(db(), plan, 2);
    });
    expect(await countOf()).toBe(things + 2);
    expect(await totalOf()).toBe(total + 2);
    // The same calls, kinds and documents per call as recorded; created documents are new ones (a second `create` of the recorded id would fail).
    expect(replayed.calls.map(kindOf)).toEqual([...first.calls, ...first.calls].map(kindOf));
    expect(replayed.calls.map((call) => documentsOf(call).length)).toEqual([...first.calls, ...first.calls].map((call) => documentsOf(call).length));
    const created = (await scope.collection('floorThings').get()).docs.map((doc) => doc.data()).filter((data) => data.id !== a && data.id !== b && !String(data.id).startsWith('thing'));
    expect(created).toHaveLength(2);
    for (const data of created) expect(data.owner).toBe(`floorThings/${data.id}`);
    // The commit carried the transaction its first read started.
    const commits = replayed.calls.filter((call) => kindOf(call) === 'transaction commit');
    expect(commits).toHaveLength(2);
    for (const commit of commits) expect((commit.request.transaction as Uint8Array).length).toBeGreaterThan(0);
  });
});
