import type { Transaction } from 'firebase-admin/firestore';
import type { EntitlementChange } from './changeModel';
import type { PublicEntitlement } from './model';
import type { EnvScope } from '../store/scope';
import { METRIC, SUBSCRIBER_ROLLUPS, SUBSCRIBER_SHARDS } from '../store/rollups/model';
import { endHourOf, hourOf } from '../store/rollups/periods';
import { seriesKey, writeRollupDeltas, type RollupDelta } from '../store/rollups/rollupWrite';
import { shardOf } from '../store/rollups/shards';

/**
 * Active subscribers per (entitlement key, rail), kept from the entitlement change records in
 * the transaction that writes them (entitlements/writer.ts calls this), as a difference array:
 * +1 in the hour an entitlement becomes active, −1 in the hour it ends (its `validUntil`, known in
 * advance, so expiry by time needs no write when it happens). The running total up to an hour is
 * the number active at the end of that hour. A change moves an end (renewal), ends one early (revoke,
 * refund, a merged customer's keys), or starts one; one customer's key counts once, so a merge,
 * whose change records remove the merged customer's keys, never counts a subscriber twice.
 *
 * Hour precision: "now" is the end of the current hour, so an entitlement running out later in
 * this hour already counts as ended; a revoke, refund or merge counts at once.
 */
export function recordSubscriberChanges(tx: Transaction, scope: EnvScope, records: readonly EntitlementChange[]): void {
  const byShard = new Map<number, RollupDelta[]>();
  for (const record of records) {
    const deltas = subscriberDeltas(record);
    if (deltas.length === 0) continue;
    const shard = shardOf(record.customerId, SUBSCRIBER_SHARDS);
    const list = byShard.get(shard) ?? [];
    list.push(...deltas);
    byShard.set(shard, list);
  }
  for (const [shard, deltas] of byShard) writeRollupDeltas(tx, scope, SUBSCRIBER_ROLLUPS, shard, deltas);
}

/** The difference-array deltas of one change record (pure; unit-tested). */
export function subscriberDeltas(record: Pick<EntitlementChange, 'key' | 'before' | 'after' | 'changedAt'>): RollupDelta[] {
  const now = record.changedAt;
  const before = activeAt(record.before, now);
  const after = activeAt(record.after, now);
  const deltas: RollupDelta[] = [];
  const add = (entitlement: PublicEntitlement, hour: number, amount: number) =>
    deltas.push({ metric: METRIC.active, series: seriesKey(record.key, entitlement.source.rail), hour, amount, running: true });
  const endHour = (entitlement: PublicEntitlement) => (entitlement.validUntil === null ? null : endHourOf(entitlement.validUntil * 1000));

  if (before && after && before.source.rail === after.source.rail) {
    // Still active on the same rail: only its scheduled end moves.
    const oldEnd = endHour(before);
    const newEnd = endHour(after);
    if (oldEnd === newEnd) return [];
    if (oldEnd !== null) add(before, oldEnd, +1);
    if (newEnd !== null) add(after, newEnd, -1);
    return deltas;
  }
  if (before) {
    const oldEnd = endHour(before);
    if (oldEnd !== null) add(before, oldEnd, +1);
    add(before, hourOf(now), -1);
  }
  if (after) {
    add(after, hourOf(now), +1);
    const newEnd = endHour(after);
    if (newEnd !== null) add(after, newEnd, -1);
  }
  return deltas;
}

/** The entitlement when it is active at `now` (a record's `before` may have run out by time). */
function activeAt(entitlement: PublicEntitlement | null, now: number): PublicEntitlement | null {
  if (!entitlement) return null;
  return entitlement.validUntil === null || entitlement.validUntil * 1000 > now ? entitlement : null;
}
