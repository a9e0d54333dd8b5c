import { Timestamp, type Transaction } from 'firebase-admin/firestore';
import { DAY } from '../clock';
import { toWireEnv, type Env } from '../store/env';
import type { EnvScope } from '../store/scope';
import { mayHaveTargets, subscribedEntries, type WebhookDirectory } from './directory';
import type { WebhookFanout } from './dispatch';
import { WEBHOOK_EVENTS, WEBHOOK_RECORD_RETENTION_DAYS, webhookEventConverter, type OutboundEventType, type WebhookEventRecord } from './eventModel';

/**
 * The outbox: an event is written in the transaction that made its change (`appendWebhookEvent`),
 * so it exists exactly when the change does. Delivery tasks are enqueued after the commit, by
 * the fan-out task (fanout.ts) or, when that was lost, by the relay (relay.ts).
 */

export const webhookEventRef = (scope: EnvScope, eventId: string) => scope.doc(WEBHOOK_EVENTS, eventId).withConverter(webhookEventConverter);

/** An outbox record for every endpoint of the partition (`endpointId` null), not fanned out yet. */
export function outboxRecord(
  partition: { projectId: string; env: Env },
  eventId: string,
  type: OutboundEventType,
  created: number,
  data: Record<string, unknown>,
  extra: Pick<WebhookEventRecord, 'changeId'> = {},
): WebhookEventRecord {
  return {
    eventId,
    projectId: partition.projectId,
    env: partition.env,
    type,
    payload: { id: eventId, object: 'event', type, created, env: toWireEnv(partition.env), projectId: partition.projectId, apiVersion: 'v1', data },
    createdAt: created,
    fannedOutAt: null,
    endpointId: null,
    expiresAt: Timestamp.fromMillis(created + WEBHOOK_RECORD_RETENTION_DAYS * DAY),
    ...extra,
  };
}

/**
 * Writes the event in the caller's transaction. `create()`: the id is derived from the change
 * (eventIds.ts), so an existing record means this change was recorded already, and the whole
 * transaction fails rather than reset that event's fan-out state.
 *
 * `directory`: the partition's webhook directory as the SAME transaction read it (directory.ts),
 * or null when it was not read or does not exist (unknown). When it names no enabled endpoint
 * subscribed to the type, the event is written already fanned out (`fannedOutAt` = its creation:
 * nobody to send to, nothing for the relay) and null is returned: the caller enqueues no fan-out.
 * Otherwise the fan-out to enqueue after the commit, with the directory's targets when known.
 */
export function appendWebhookEvent(tx: Transaction, scope: EnvScope, record: WebhookEventRecord, directory: WebhookDirectory | null = null): WebhookFanout | null {
  if (record.projectId !== scope.projectId || record.env !== scope.env) throw new Error(`webhook event ${record.eventId} is not of the scope's partition`);
  const needsFanOut = record.endpointId !== null || mayHaveTargets(directory, record.type);
  tx.create(webhookEventRef(scope, record.eventId), needsFanOut ? record : { ...record, fannedOutAt: record.createdAt });
  if (!needsFanOut) return null;
  const known = directory !== null && record.endpointId === null;
  return { eventId: record.eventId, snapshot: known ? { payload: record.payload, targets: subscribedEntries(directory, record.type) } : null };
}
