/**
 * A Map holding at most `limit` entries; writing a key makes it the newest and the oldest write
 * goes first past the limit. Every per-instance cache keyed by something a caller chooses (API
 * keys, user ids, projects, certificate chains, service accounts) uses it, so that no flood of
 * distinct keys can grow an instance's memory.
 */
export class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>();

  /** `onEvict` is told of each entry the limit pushes out (not of `delete` or `clear`), to release what it holds. */
  constructor(
    readonly limit: number,
    private readonly onEvict?: (key: K, value: V) => void,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`BoundedMap limit must be a positive integer, got ${limit}`);
  }

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** Stores `value` as the newest entry, evicting the oldest one when the map is over its limit. */
  set(key: K, value: V): void {
    this.entries.delete(key); // re-insert: Map order is write order, which decides eviction
    this.entries.set(key, value);
    if (this.entries.size <= this.limit) return;
    const [oldestKey, oldestValue] = this.entries.entries().next().value as [K, V];
    this.entries.delete(oldestKey);
    this.onEvict?.(oldestKey, oldestValue);
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
