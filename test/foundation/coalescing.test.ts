/**
 * Guarantees of single-flight reads (store/rounds.ts, store/coalesced.ts) and of local background
 * work: a caller is always served by a round that started after it arrived (fresh reads),
 * concurrent callers reading the same documents share rounds, a failed round fails only its own
 * callers; the in-process queue bounds concurrency. (Commits are never shared across requests.)
 */
import type { Firestore } from 'firebase-admin/firestore';
import { coalescedGetAll } from '../../functions/src/store/coalesced';
import { Rounds } from '../../functions/src/store/rounds';
import { InProcessTaskQueue } from '../../functions/src/tasks/inProcessQueue';
import { createTestService } from '../support/harness';

const deferred = <T>() => {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
};
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('Rounds', () => {
  it('serves callers that arrive during a round together in the next one, each by a round started after it arrived', async () => {
    const log: { started: number; items: number[] }[] = [];
    let clock = 0;
    const gates: ReturnType<typeof deferred<void>>[] = [];
    const rounds = new Rounds<number, string>(async (items) => {
      const gate = deferred<void>();
      gates.push(gate);
      log.push({ started: clock, items });
      await gate.promise;
      return items.map((item) => `r${log.length}:${item}`);
    });
    const arrivals = new Map<number, number>();
    const submit = (item: number) => {
      arrivals.set(item, clock);
      return rounds.submit('k', item);
    };

    const first = submit(1);
    clock = 1;
    const rest = [submit(2), submit(3), submit(4)];
    await tick();
    expect(log).toEqual([{ started: 0, items: [1] }]);
    gates[0].resolve();
    clock = 2;
    await expect(first).resolves.toBe('r1:1');
    await tick();
    expect(log[1]).toEqual({ started: 2, items: [2, 3, 4] });
    gates[1].resolve();
    await expect(Promise.all(rest)).resolves.toEqual(['r2:2', 'r2:3', 'r2:4']);
    for (const item of [2, 3, 4]) expect(log[1].started).toBeGreaterThan(arrivals.get(item)!);
  });

  it('startAtEndOfTurn: callers of the same turn share the first round (a burst reads once); without it the first reads alone', async () => {
    const sizes: number[] = [];
    const rounds = new Rounds<number, number>(async (items) => {
      sizes.push(items.length);
      await tick();
      return items;
    });
    // Three requests of a burst reaching their read in the same turn.
    const burst = [1, 2, 3].map((n) => rounds.submit('together', n, true));
    expect(sizes).toEqual([]); // nothing sent before the turn ends
    await expect(Promise.all(burst)).resolves.toEqual([1, 2, 3]);
    expect(sizes).toEqual([3]);
    // A caller arriving while that key's round is in flight still waits for the next round.
    const first = rounds.submit('together', 4, true);
    await tick();
    const later = rounds.submit('together', 5, true);
    await expect(Promise.all([first, later])).resolves.toEqual([4, 5]);
    expect(sizes).toEqual([3, 1, 1]);
    // The default: the first caller's round starts at once, alone.
    sizes.length = 0;
    await Promise.all([6, 7, 8].map((n) => rounds.submit('at-once', n)));
    expect(sizes).toEqual([1, 2]);
  });

  it('takes only what fits in a round; the rest follows in the next', async () => {
    const sizes: number[] = [];
    const rounds = new Rounds<number, number>(
      async (items) => {
        sizes.push(items.length);
        return items;
      },
      (items) => Math.min(2, items.length),
    );
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => rounds.submit('k', n)));
    expect(results).toEqual([1, 2, 3, 4, 5]);
    expect(sizes).toEqual([1, 2, 2]);
  });

  it('a failed round fails its own callers only; keys run independently', async () => {
    let calls = 0;
    const rounds = new Rounds<string, string>(async (items) => {
      calls += 1;
      if (items.includes('bad')) throw new Error('round failed');
      return items;
    });
    const bad = rounds.submit('a', 'bad');
    const other = rounds.submit('b', 'fine'); // another key: its own round at once
    const next = rounds.submit('a', 'later');
    await expect(bad).rejects.toThrow('round failed');
    await expect(other).resolves.toBe('fine');
    await expect(next).resolves.toBe('later');
    expect(calls).toBe(3);
  });
});

describe('shared store calls (emulator)', () => {
  const service = createTestService();
  const db: Firestore = service.deps.db;
  const root = `coalescing-test/${Date.now()}`;

  it('concurrent identical reads share rounds, and a read requested after a write sees it', async () => {
    const key = db.doc(`${root}/reads/key`);
    const project = db.doc(`${root}/reads/project`);
    await key.set({ status: 'active' });
    const spy = jest.spyOn(db, 'getAll');
    try {
      const first = coalescedGetAll(db, [key, project]);
      const others = Array.from({ length: 9 }, () => coalescedGetAll(db, [key, project]));
      await Promise.all([first, ...others]);
      expect(spy.mock.calls.length).toBeLessThanOrEqual(2);

      // A round in flight when the key is revoked cannot answer a request that arrives afterwards.
      const inFlight = coalescedGetAll(db, [key, project]);
      await key.set({ status: 'revoked' });
      const after = await coalescedGetAll(db, [key, project]);
      expect(after[0].get('status')).toBe('revoked');
      await inFlight;
    } finally {
      spy.mockRestore();
    }
  });
});

describe('in-process task queue', () => {
  it('runs at most maxConcurrent tasks of a queue at once, in order, and drains them all', async () => {
    const queue = new InProcessTaskQueue({ maxConcurrent: 2, backoffMs: () => 0 });
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    queue.attach(async (_queue, payload) => {
      running += 1;
      peak = Math.max(peak, running);
      order.push(payload.n as number);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
    });
    for (let n = 0; n < 6; n += 1) await queue.enqueue('identityResolution', { n }, { id: `t${n}` });
    await queue.drain();
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
