import { randomInt } from 'node:crypto';
import type { EnvScope } from '../scope';
import { EVENT_ROLLUPS, EVENT_SHARDS, METRIC } from './model';
import { hourOf } from './periods';
import { seriesKey, writeRollupDeltas, type RollupDelta, type SetWriter } from './rollupWrite';
import { shardOf } from './shards';

/**
 * Event count rollups (`reportEvents`, sharded day documents):
 *
 * - `events` per event name per hour of the event's `timestamp`: added by the identity-resolution
 *   task in the commit that stores the events, for events stored for the first time only, so a
 *   retried batch never counts twice (storedEventRollups.ts reads whether each event exists);
 * - `throttled` (events beyond the tokens the bucket granted) and `dropped` (those of them that
 *   did not land) per hour of receipt: added to the request's own commit when a batch is partly
 *   throttled, so the request path keeps its one read and one commit. A batch refused whole
 *   (`429`) lands nothing and writes nothing: the SDK retries it, so it is neither.
 */
export function recordThrottled(writer: SetWriter, scope: EnvScope, receivedAt: number, throttled: number, dropped: number): void {
  if (throttled <= 0 && dropped <= 0) return;
  const hour = hourOf(receivedAt);
  const series = seriesKey('all');
  writeRollupDeltas(writer, scope, EVENT_ROLLUPS, randomInt(EVENT_SHARDS), [
    { metric: METRIC.throttled, series, hour, amount: throttled, running: false },
    { metric: METRIC.dropped, series, hour, amount: dropped, running: false },
  ]);
}

/** Adds one per newly stored event (name, timestamp) to the task's commit. */
export function recordEventCounts(writer: SetWriter, scope: EnvScope, shardKey: string, events: readonly { name: string; timestamp: number }[]): void {
  const deltas: RollupDelta[] = events.map((event) => ({ metric: METRIC.events, series: seriesKey(event.name), hour: hourOf(event.timestamp), amount: 1, running: false }));
  if (deltas.length > 0) writeRollupDeltas(writer, scope, EVENT_ROLLUPS, shardOf(shardKey, EVENT_SHARDS), deltas);
}
