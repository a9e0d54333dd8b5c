import type { DocumentData, DocumentSnapshot } from 'firebase-admin/firestore';
import { HOUR } from '../../clock';
import type { EnvScope } from '../scope';
import { ALL_TIME, hourOf, periodKeys } from './periods';
import { shardDocId } from './shards';

/**
 * Compaction of a period's shards (rollupWrite.ts): the figures of sub-periods that have ended
 * (past hours of a day document, past days of a month, past months of a year, past years of the
 * all-time document) are MOVED from shards 1…N−1 into shard 0, in one transaction that reads the
 * shards and rewrites them. A reader sums every shard, as before, so a report is the same before
 * and after; it only decodes about one shard's worth of values instead of N for what has ended.
 *
 * Why moving is safe whatever arrives late: the sum over the shards never changes, and a write
 * that lands after the compaction (an event with an old timestamp, a payment recorded late) is an
 * increment of its own shard, summed by every reader like any other. A write that lands while a
 * compaction runs touches a document the transaction read, so the compaction retries (or the
 * write waits for it). No write path reads or writes anything new: shard 0 takes one more write
 * per run, and "ended" only decides what is worth moving, never what is correct.
 */

type Tree = { [key: string]: Tree | number };

/** What one run moved: periods whose shards were rewritten, and the figures (leaves) moved. */
export interface CompactionResult {
  periodsCompacted: number;
  figuresMoved: number;
}

/**
 * Where a period document's sub-period key sits (its depth in the field tree) and the hour the
 * sub-period it names ends (exclusive), per document kind (rollupWrite.ts):
 * day `{metric: {series: {HH: n}}}`, month `{metric_days: {DD: {series: n}}}`, year
 * `{metric_months: {MM: {series: n}}}`, all-time `{metric_years: {YYYY: {series: n}}}`.
 */
interface PeriodShape {
  depth: number;
  endHour(key: string): number | null;
}

const utcHour = (year: number, month: number, day: number): number => Date.UTC(year, month - 1, day) / HOUR;
const asInt = (key: string): number | null => (/^\d+$/.test(key) ? Number(key) : null);

function periodShape(period: string): PeriodShape | null {
  if (period === ALL_TIME) {
    return { depth: 1, endHour: (yyyy) => (asInt(yyyy) === null ? null : utcHour(Number(yyyy) + 1, 1, 1)) };
  }
  const match = /^([dmy])(\d{4})(\d{2})?(\d{2})?$/.exec(period);
  if (!match) return null;
  const [, kind, y, m, d] = match;
  const year = Number(y);
  if (kind === 'y' && m === undefined) return { depth: 1, endHour: (mm) => (asInt(mm) === null ? null : utcHour(year, Number(mm) + 1, 1)) };
  if (kind === 'm' && m !== undefined && d === undefined) return { depth: 1, endHour: (dd) => (asInt(dd) === null ? null : utcHour(year, Number(m), Number(dd) + 1)) };
  if (kind === 'd' && m !== undefined && d !== undefined) return { depth: 2, endHour: (hh) => (asInt(hh) === null ? null : utcHour(year, Number(m), Number(d)) + Number(hh) + 1) };
  return null;
}

/**
 * The periods an hourly run compacts at `now`: the day documents of today and yesterday (a run
 * just after midnight still finishes yesterday), their month and year documents, and the
 * all-time document. Each period is compacted as its sub-periods end, so over time every period
 * was compacted by the runs of the days it was current.
 */
export function recentPeriods(now: number): string[] {
  const hour = hourOf(now);
  const periods = new Set<string>([ALL_TIME]);
  for (const h of [hour - 24, hour]) {
    const keys = periodKeys(h);
    periods.add(keys.day).add(keys.month).add(keys.year);
  }
  return [...periods];
}

/**
 * Compacts `periods` of one rollup collection in one transaction: what ended before the current
 * hour of `now` moves into shard 0. A period whose shards hold nothing ended outside shard 0 is
 * left untouched (no write).
 */
export async function compactRollupPeriods(scope: EnvScope, collection: string, shards: number, periods: readonly string[], now: number): Promise<CompactionResult> {
  const cutoffHour = hourOf(now);
  const shaped = periods.map((period) => ({ period, shape: periodShape(period) })).filter((p): p is { period: string; shape: PeriodShape } => p.shape !== null);
  if (shards < 2 || shaped.length === 0) return { periodsCompacted: 0, figuresMoved: 0 };
  return scope.runTransaction(async (tx) => {
    const refs = shaped.flatMap(({ period }) => Array.from({ length: shards }, (_, s) => scope.doc(collection, shardDocId(period, s))));
    const snapshots: DocumentSnapshot<DocumentData>[] = await tx.getAll(...refs);
    const result: CompactionResult = { periodsCompacted: 0, figuresMoved: 0 };
    shaped.forEach(({ shape }, p) => {
      const periodSnaps = snapshots.slice(p * shards, (p + 1) * shards);
      const target = cloneTree(periodSnaps[0].data() ?? {});
      const rewritten: { index: number; remaining: Tree }[] = [];
      let moved = 0;
      for (let s = 1; s < shards; s += 1) {
        const data = periodSnaps[s].data();
        if (!data) continue;
        const remaining = cloneTree(data);
        const count = moveEnded(remaining, target, shape, cutoffHour);
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
 * Moves every numeric figure of `source` filed under a sub-period that ended by `cutoffHour` into
 * `target` (added), pruning maps left empty. A figure whose place in `target` is taken by
 * something that is not a map stays where it is. Returns how many figures moved.
 */
function moveEnded(source: Tree, target: Tree, shape: PeriodShape, cutoffHour: number): number {
  let moved = 0;
  const walk = (node: Tree, path: string[], ended: boolean): void => {
    for (const [key, value] of Object.entries(node)) {
      const depth = path.length;
      const endHour = depth === shape.depth ? shape.endHour(key) : null;
      const isEnded = ended || (endHour !== null && endHour <= cutoffHour);
      if (typeof value === 'number') {
        if (isEnded && depth >= shape.depth && addAt(target, [...path, key], value)) {
          delete node[key];
          moved += 1;
        }
      } else if (isTree(value)) {
        walk(value, [...path, key], isEnded);
        if (Object.keys(value).length === 0) delete node[key];
      }
    }
  };
  walk(source, [], false);
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

/** A deep copy of the maps and numbers of a stored document (anything else is kept by reference). */
function cloneTree(data: DocumentData): Tree {
  const out: Tree = {};
  for (const [key, value] of Object.entries(data)) out[key] = isTree(value) ? cloneTree(value) : (value as number);
  return out;
}
