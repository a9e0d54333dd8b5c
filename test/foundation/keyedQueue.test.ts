/**
 * Guarantees of the per-instance fair queue every writer of a customer takes (store/keyedQueue.ts,
 * store/writeQueue.ts): holders of a shared key run one at a time in arrival order (FIFO);
 * disjoint keys run together; keys are released when the work throws; a nested call never
 * waits (for its own keys or others), so no caller deadlocks itself; a key with too many
 * callers waiting refuses the next one with QueueFullError; multi-key callers never deadlock.
 */
import { KeyedQueue, QueueFullError } from '../../functions/src/store/keyedQueue';

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Work that runs until released by the test. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

describe('KeyedQueue', () => {
  it('serialises holders of a shared key and lets disjoint keys run together', async () => {
    const queue = new KeyedQueue();
    const events: string[] = [];
    const first = gate();
    const a = queue.run(['a', 'b'], async () => {
      events.push('first:start');
      await first.wait;
      events.push('first:end');
    });
    const b = queue.run(['b'], async () => {
      events.push('second');
    });
    await queue.run(['c'], async () => {
      events.push('disjoint');
    });
    await tick();
    expect(events).toEqual(['first:start', 'disjoint']);
    first.open();
    await Promise.all([a, b]);
    expect(events).toEqual(['first:start', 'disjoint', 'first:end', 'second']);
  });

  it('runs the callers of one key in arrival order (FIFO), one at a time', async () => {
    const queue = new KeyedQueue();
    const order: number[] = [];
    let running = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        queue.run(['customer'], async () => {
          running += 1;
          most = Math.max(most, running);
          // Later arrivals finish their own wait sooner: order must still be arrival order.
          await new Promise((resolve) => setTimeout(resolve, (20 - i) % 3));
          order.push(i);
          running -= 1;
        }),
      ),
    );
    expect(order).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(most).toBe(1);
  });

  it('releases the keys when the work throws', async () => {
    const queue = new KeyedQueue();
    await expect(queue.run(['k'], async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(queue.run(['k'], async () => 'next')).resolves.toBe('next');
    expect(queue.waitingOn('k')).toBe(0);
  });

  it('lets nested calls through instead of deadlocking on their own or other keys', async () => {
    const queue = new KeyedQueue();
    const result = await queue.run(['a'], () => queue.run(['a'], () => queue.run(['a', 'b'], async () => 'nested')));
    expect(result).toBe('nested');
  });

  it('queues work spawned by a holder that outlives it like any other caller', async () => {
    const queue = new KeyedQueue();
    const events: string[] = [];
    const later = gate();
    let spawned!: Promise<void>;
    await queue.run(['a'], async () => {
      spawned = later.wait.then(() => queue.run(['a'], async () => void events.push('spawned')));
    });
    const blocker = gate();
    const holder = queue.run(['a'], async () => {
      await blocker.wait;
      events.push('holder');
    });
    later.open();
    await tick();
    expect(events).toEqual([]); // the spawned call waits for the current holder
    blocker.open();
    await Promise.all([holder, spawned]);
    expect(events).toEqual(['holder', 'spawned']);
  });

  it('refuses a caller once a key has maxWaiting callers queued, and admits again as they drain', async () => {
    const queue = new KeyedQueue({ maxWaiting: 2 });
    const hold = gate();
    const running = queue.run(['k'], () => hold.wait);
    const queued = [queue.run(['k'], async () => 1), queue.run(['k', 'other'], async () => 2)];
    expect(queue.waitingOn('k')).toBe(2);
    await expect(queue.run(['k'], async () => 3)).rejects.toBeInstanceOf(QueueFullError);
    await expect(queue.run(['free'], async () => 4)).resolves.toBe(4); // other keys are unaffected
    hold.open();
    await running;
    expect(await Promise.all(queued)).toEqual([1, 2]);
    await expect(queue.run(['k'], async () => 5)).resolves.toBe(5);
  });

  it('never deadlocks callers that name overlapping keys in different orders', async () => {
    const queue = new KeyedQueue();
    const keys = ['x', 'y', 'z'];
    const done: number[] = [];
    await Promise.all(
      Array.from({ length: 30 }, (_, i) => {
        const mine = [keys[i % 3], keys[(i + 1) % 3]];
        if (i % 2) mine.reverse();
        return queue.run(mine, async () => {
          await tick();
          done.push(i);
        });
      }),
    );
    expect(done).toHaveLength(30);
  });
});
