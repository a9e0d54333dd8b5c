/**
 * Guarantee (issue 12, §3): store round trips are counted once, at the store edge, into the
 * counter of the request whose async context issued them: EnvScope reads and commits, counted
 * transactions (each read plus one commit: the client starts a transaction inside its first read) and the unscoped reads of store/counted.ts.
 * Concurrent requests never count into each other; work outside a request counts nowhere.
 */
import { EnvScope } from '../../functions/src/store/scope';
import { countedGet, countedTransaction } from '../../functions/src/store/counted';
import { RoundTripCounter, withRoundTripCounter } from '../../functions/src/store/roundTrips';
import { InProcessTaskQueue } from '../../functions/src/tasks/inProcessQueue';
import { createTestService } from '../support/harness';

const service = createTestService();

describe('round trips counted at the store edge', () => {
  const projectId = `rt_${Date.now()}`;

  it('counts scope reads, commits and transactions (one per read + the commit) into the current request only', async () => {
    const db = service.deps.db;
    const scope = new EnvScope(db, projectId, 'test');
    const a = new RoundTripCounter();
    const b = new RoundTripCounter();
    await Promise.all([
      withRoundTripCounter(a, async () => {
        await scope.getAll(scope.doc('things', 'one'), scope.doc('things', 'two')); // 1
        const batch = scope.batch();
        batch.set(scope.doc('things', 'one'), { n: 1 });
        await scope.commit(batch); // 1
        await scope.runTransaction(async (tx) => {
          await tx.get(scope.doc('things', 'one')); // 1
          await tx.getAll(scope.doc('things', 'one'), scope.doc('things', 'two')); // 1
          tx.set(scope.doc('things', 'two'), { n: 2 }).set(scope.doc('things', 'three'), { n: 3 });
        }); // + commit 1
      }),
      withRoundTripCounter(b, async () => {
        await countedGet(db.doc(`projects/${projectId}`)); // 1
        await countedTransaction(db, async (tx) => void (await tx.get(db.doc(`projects/${projectId}`)))); // 2
      }),
    ]);
    expect(a.count).toBe(5);
    expect(b.count).toBe(3);
    expect((await scope.get(scope.doc('things', 'three'))).get('n')).toBe(3); // the chained write landed
  });

  it('the count is the client’s own RPCs: a transaction is its reads plus one commit, no BeginTransaction', async () => {
    const db = service.deps.db;
    const scope = new EnvScope(db, projectId, 'test');
    // The client's two RPC entry points (unary: commit, beginTransaction, rollback; streaming: batchGetDocuments, runQuery).
    const client = db as unknown as Record<'request' | 'requestStream', (method: string, ...rest: unknown[]) => unknown>;
    const rpcs: string[] = [];
    const originals = { request: client.request, requestStream: client.requestStream };
    for (const name of ['request', 'requestStream'] as const) {
      client[name] = function (this: unknown, method: string, ...rest: unknown[]) {
        rpcs.push(method);
        return originals[name].call(this, method, ...rest);
      };
    }
    const counter = new RoundTripCounter();
    try {
      await withRoundTripCounter(counter, () =>
        scope.runTransaction(async (tx) => {
          await tx.getAll(scope.doc('things', 'one'), scope.doc('things', 'two'));
          await tx.get(scope.collection('things').where('n', '==', 2));
          tx.set(scope.doc('things', 'four'), { n: 4 });
        }),
      );
    } finally {
      Object.assign(client, originals);
    }
    expect(rpcs).toEqual(['batchGetDocuments', 'runQuery', 'commit']);
    expect(counter.count).toBe(rpcs.length);
  });

  it('counts nothing outside a request context, and nothing into a finished request', async () => {
    const scope = new EnvScope(service.deps.db, projectId, 'test');
    const done = new RoundTripCounter();
    await withRoundTripCounter(done, () => scope.getAll(scope.doc('things', 'one')));
    await scope.getAll(scope.doc('things', 'one'));
    expect(done.count).toBe(1);
  });

  it('a task the request enqueues in-process never counts into the request', async () => {
    const scope = new EnvScope(service.deps.db, projectId, 'test');
    const queue = new InProcessTaskQueue({ backoffMs: () => 0 });
    let taskReads = 0;
    queue.attach(async () => {
      await scope.getAll(scope.doc('things', 'one'));
      taskReads += 1;
    });
    const request = new RoundTripCounter();
    await withRoundTripCounter(request, async () => {
      await queue.enqueue('erasure', {}, { id: `rt-${Date.now()}` });
      await scope.getAll(scope.doc('things', 'two'));
      await queue.drain(); // the task's read happens while the request is still open
    });
    expect(taskReads).toBe(1);
    expect(request.count).toBe(1);
  });
});
