import type { EnvScope } from '../scope';
import { storedRecord } from '../converters';
import { ALL_TIME, hourOf, periodKeys } from './periods';
import { shardDocId } from './shards';

/**
 * Compaction of a period's shards (rollupWrite.ts): every figure of shards 1…N−1 is MOVED into
 * shard 0, in one transaction that reads the shards and rewrites them. A reader sums every shard,
 * as before, so a report is the same before and after; it only decodes about one shard's worth
 * of values (plus what was written since the last run) instead of N.
 *
 * Why moving is safe whatever arrives late or early: the sum over the shards never changes, and
 * a write that lands after the compaction (an event with an old timestamp, a payment recorded
 * late, a scheduled end) is an increment of its own shard, summed by every reader like any
 * other. A write that lands while a compaction runs touches a document the transaction read, so
 * the compaction retries (or the write waits for it). No write path reads or writes anything
 * new: writers keep their own shards, and shard 0 takes one more write per period per run.
 */

/** A rollup document as the compaction handles it: maps of maps down to numbers (rollupWrite.ts). */
type Tree = { [key: string]: Tree | number };
const rollupDocument = storedRecord<Tree>();

/** What one run moved: periods whose shards were rewritten, and the figures (leaves) moved. */
export interface CompactionResult {
  periodsCompacted: number;
  figuresMoved: number;
}

/**
 * The periods an hourly run compacts at `now`: the day documents of yesterday (a run just after
 * midnight finishes it), today and tomorrow (scheduled ends are written ahead), their month and
 * year documents, and the all-time document. Every period is compacted while it is current, so
 * each was compacted by the runs of the days it is read most.
 */
export function recentPeriods(now: number): string[] {
  const hour = hourOf(now);
  const periods = new Set<string>([ALL_TIME]);
  for (const h of [hour - 24, hour, hour + 24]) {
    const keys = periodKeys(h);
    periods.add(keys.day).add(keys.month).add(keys.year);
  }
  return [...periods];
}

/**
 * Compacts `periods` of one rollup collection in one transaction: shards 1…N−1 move into shard
 * 0. A period with nothing outside shard 0 is left untouched (no write).
 */
export async function compactRollupPeriods(scope: EnvScope, collection: string, shards: number, periods: readonly string[]): Promise<CompactionResult> {
  if (shards < 2 || periods.length === 0) return { periodsCompacted: 0, figuresMoved: 0 };
  return scope.runTransaction(async (tx) => {
    const refs = periods.flatMap((period) => Array.from({ length: shards }, (_, s) => scope.doc(collection, shardDocId(period, s)).withConverter(rollupDocument)));
    const snapshots = await tx.getAll(...refs);
    const result: CompactionResult = { periodsCompacted: 0, figuresMoved: 0 };
    periods.forEach((_, p) => {
      const periodSnaps = snapshots.slice(p * shards, (p + 1) * shards);
      const target = cloneTree(periodSnaps[0].data() ?? {});
      const rewritten: { index: number; remaining: Tree }[] = [];
      let moved = 0;
      for (let s = 1; s < shards; s += 1) {
        const data = periodSnaps[s].data();
        if (!data) continue;
        const remaining = cloneTree(data);
        const count = moveFigures(remaining, target);
        if (count > 0) rewritten.push({ index: s, remaining });
        moved += count;
      }
      if (moved === 0) return;
      tx.set(refs[p * shards], target);
      for (const { index, remaining } of rewritten) {
        const ref = refs[p * shards + index];
        if (Object.keys(remaining).length === 0) tx.delete(ref);
        else tx.set(ref, remaining);
      }
      result.periodsCompacted += 1;
      result.figuresMoved += moved;
    });
    return result;
  });
}

/**
 * Moves every numeric figure of `source` into `target` (added at the same path), pruning maps
 * left empty. A figure whose place in `target` is taken by something that is not a map stays
 * where it is, as does anything that is neither a number nor a map. Returns how many moved.
 */
function moveFigures(source: Tree, target: Tree): number {
  let moved = 0;
  const walk = (node: Tree, path: string[]): void => {
    for (const [key, value] of Object.entries(node)) {
      if (typeof value === 'number') {
        if (addAt(target, [...path, key], value)) {
          delete node[key];
          moved += 1;
        }
      } else if (isTree(value)) {
        walk(value, [...path, key]);
        if (Object.keys(value).length === 0) delete node[key];
      }
    }
  };
  walk(source, []);
  return moved;
}

/** Adds `amount` at `path` in `tree`, creating maps on the way; false when a non-map is in the way. */
function addAt(tree: Tree, path: readonly string[], amount: number): boolean {
  let node = tree;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (next === undefined) node = node[key] = {};
    else if (isTree(next)) node = next;
    else return false;
  }
  const leaf = path[path.length - 1];
  const current = node[leaf];
  if (current !== undefined && typeof current !== 'number') return false;
  node[leaf] = (current ?? 0) + amount;
  return true;
}

const isTree = (value: unknown): value is Tree => typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;

/** A deep copy of the maps of a stored document (numbers, and anything else, are kept as they are). */
function cloneTree(data: Tree): Tree {
  const out: Tree = {};
  for (const [key, value] of Object.entries(data)) out[key] = isTree(value) ? cloneTree(value) : value;
  return out;
}
