import type { BackgroundDeps } from '../tasks/background';
import { MINUTE } from '../clock';
import { queryAcrossPartitions } from '../store/partitions';
import type { EnvScope } from '../store/scope';
import { WEBHOOK_EVENTS, webhookEventConverter } from './eventModel';
import { fanOut, listEndpoints } from './fanout';
import type { WebhookEndpointRecord } from './model';
import { outboxLogs } from './outboxLogs';

/**
 * The outbox relay (run by the webhook worker every minute): events still not fanned out this
 * long after their change committed lost their fan-out task (a crash between the commit and
 * the enqueue, an enqueue that failed, a task that gave up) or were recorded where no task
 * queue is at hand (operator commands: merges). It fans them out itself, oldest first; the
 * delivery task ids are deterministic, so an event the fan-out task is handling at the same
 * time is never delivered twice. Query: `fannedOutAt == null`, `createdAt <=`, ordered by
 * `createdAt` (collection-group index in firestore.indexes.json).
 */
export const RELAY_AFTER_MS = MINUTE;
const RELAY_LIMIT = 500;

export interface RelayReport {
  waiting: number;
  fannedOut: number;
  failed: number;
}

export async function relayUnfannedEvents(deps: BackgroundDeps): Promise<RelayReport> {
  const now = deps.clock.now();
  const waiting = await queryAcrossPartitions(deps.db, WEBHOOK_EVENTS, webhookEventConverter, (events) =>
    events.where('fannedOutAt', '==', null).where('createdAt', '<=', now - RELAY_AFTER_MS).orderBy('createdAt').limit(RELAY_LIMIT),
  );
  const endpointsByPartition = new Map<EnvScope, Promise<WebhookEndpointRecord[]>>();
  const report: RelayReport = { waiting: waiting.found, fannedOut: 0, failed: 0 };
  for (const { scope, doc } of waiting.documents) {
    const { projectId, env } = scope;
    const event = doc.data();
    if (event.projectId !== projectId || event.env !== env || event.eventId !== doc.id) continue; // not where its record says: never sent
    try {
      if (!endpointsByPartition.has(scope)) endpointsByPartition.set(scope, listEndpoints(scope));
      await fanOut(scope, deps.tasks, event, await endpointsByPartition.get(scope)!, now);
      report.fannedOut += 1;
    } catch (err) {
      report.failed += 1;
      outboxLogs.relayFailed(projectId, env, doc.id, err instanceof Error ? err.message : String(err));
    }
  }
  return report;
}
