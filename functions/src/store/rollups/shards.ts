import { createHash } from 'node:crypto';

/**
 * A rollup document takes at most about one write per second, so rollups that many writers
 * touch at once are split into shards and summed at read time. The shard follows the writer's
 * own key (a customer, a payment, a landed batch), so retries of one write land on one shard.
 */
export function shardOf(key: string, shards: number): number {
  return createHash('sha256').update(key, 'utf8').digest().readUInt32BE(0) % shards;
}

/** `d20261123` + shard 2 → `d20261123_2`. Ids of one period sort together, by shard. */
export const shardDocId = (period: string, shard: number): string => `${period}_${shard}`;
