/**
 * Rollup collections, under the partition (`projects/{p}/envs/{env}/…`, EnvScope), and their
 * shard counts. Document ids: `y2026_s`, `m202611_s`, `d20261123_s` (s = shard); see
 * rollupWrite.ts for the fields. Error groups: errorGroupModel.ts.
 */
export const SUBSCRIBER_ROLLUPS = 'reportSubscribers';
export const REVENUE_ROLLUPS = 'reportRevenue';
export const EVENT_ROLLUPS = 'reportEvents';

/**
 * Shards per period. Subscribers and revenue change with purchases (one customer's or one
 * payment's writes all go to one shard); event counts change with every stored batch.
 */
export const SUBSCRIBER_SHARDS = 4;
export const REVENUE_SHARDS = 4;
export const EVENT_SHARDS = 8;

/** Metrics (first-level fields of a rollup document). */
export const METRIC = {
  active: 'active',
  gross: 'gross',
  refunds: 'refunds',
  mrr: 'mrr',
  events: 'events',
  throttled: 'throttled',
  dropped: 'dropped',
} as const;
