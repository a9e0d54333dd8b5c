/**
 * The bound every per-instance cache relies on (functions/src/boundedMap.ts): never more than
 * `limit` entries, the oldest write evicted first, a re-written key counted as new.
 */
import { BoundedMap } from '../../functions/src/boundedMap';

describe('BoundedMap', () => {
  it('keeps at most its limit, evicting the oldest write first', () => {
    const map = new BoundedMap<string, number>(3);
    for (const [i, key] of ['a', 'b', 'c', 'd', 'e'].entries()) map.set(key, i);
    expect(map.size).toBe(3);
    expect([map.get('a'), map.get('b')]).toEqual([undefined, undefined]);
    expect([map.get('c'), map.get('d'), map.get('e')]).toEqual([2, 3, 4]);
  });

  it('treats a re-written key as the newest and never evicts for a key it already holds', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    map.set('a', 10); // a is now newer than b
    expect(map.size).toBe(2);
    map.set('c', 3);
    expect(map.get('b')).toBeUndefined();
    expect([map.get('a'), map.get('c')]).toEqual([10, 3]);
  });

  it('stays bounded under a flood of distinct keys', () => {
    const map = new BoundedMap<number, number>(100);
    for (let i = 0; i < 10_000; i += 1) map.set(i, i);
    expect(map.size).toBe(100);
    expect(map.get(9_999)).toBe(9_999);
    expect(map.get(9_899)).toBeUndefined();
  });

  it('tells onEvict of each entry the limit pushes out, and of nothing else', () => {
    const evicted: [string, number][] = [];
    const map = new BoundedMap<string, number>(2, (key, value) => evicted.push([key, value]));
    map.set('a', 1);
    map.set('b', 2);
    map.set('a', 10); // a re-write of a held key evicts nothing
    map.delete('b'); // neither does a delete
    map.set('c', 3);
    expect(evicted).toEqual([]);
    map.set('d', 4);
    expect(evicted).toEqual([['a', 10]]);
    map.clear();
    expect(evicted).toEqual([['a', 10]]);
  });

  it('deletes and clears', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1);
    expect(map.delete('a')).toBe(true);
    expect(map.delete('a')).toBe(false);
    map.set('b', 2);
    map.clear();
    expect(map.size).toBe(0);
  });

  it('refuses a limit that could not bound anything', () => {
    for (const limit of [0, -1, 1.5, Number.NaN]) expect(() => new BoundedMap(limit)).toThrow(RangeError);
  });
});
