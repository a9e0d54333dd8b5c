import type { BackgroundDeps } from '../tasks/background';
import { EnvScope } from '../store/scope';
import type { TaskQueue } from '../tasks/queue';
import { isFanoutPayload } from './dispatch';
import { deliveryTaskId, WEBHOOK_DELIVERY_QUEUE, type DeliveryTaskPayload, type WebhookEventRecord } from './eventModel';
import { TEST_EVENT_TYPE, type WebhookEndpointRecord } from './model';
import { outboxLogs } from './outboxLogs';
import { webhookEventRef } from './outbox';
import { endpointsCollection } from './endpoints';

/**
 * Fan-out: one `webhookDelivery` task per endpoint an event goes to, with the deterministic task
 * id `{eventId}-{endpointId}` (a second fan-out of the same event enqueues nothing new), then
 * `fannedOutAt` on the event. Endpoints are listed from the event's own partition only: a test
 * environment's event never reaches a live endpoint, nor one project's event another's.
 */

/**
 * The endpoints an event goes to: the one it names (`webhook.test`, whatever its filter), else
 * every enabled endpoint subscribed to its type (an empty filter is every type).
 */
export function endpointsFor(event: Pick<WebhookEventRecord, 'type' | 'endpointId' | 'projectId' | 'env'>, endpoints: readonly WebhookEndpointRecord[]): WebhookEndpointRecord[] {
  const own = endpoints.filter((e) => e.projectId === event.projectId && e.env === event.env);
  if (event.endpointId !== null) return own.filter((e) => e.endpointId === event.endpointId);
  if (event.type === TEST_EVENT_TYPE) return [];
  return own.filter((e) => e.disabled === null && (e.eventTypes.length === 0 || (e.eventTypes as string[]).includes(event.type)));
}

export async function listEndpoints(scope: EnvScope): Promise<WebhookEndpointRecord[]> {
  const snapshot = await scope.query(endpointsCollection(scope));
  return snapshot.docs.map((d) => d.data());
}

/** Enqueues the event's deliveries and marks it fanned out. Throws (to be retried) when an enqueue fails. */
export async function fanOut(scope: EnvScope, tasks: TaskQueue, event: WebhookEventRecord, endpoints: readonly WebhookEndpointRecord[], now: number): Promise<number> {
  const targets = endpointsFor(event, endpoints);
  for (const endpoint of targets) {
    const payload: DeliveryTaskPayload = { projectId: scope.projectId, env: scope.env, eventId: event.eventId, endpointId: endpoint.endpointId };
    await tasks.enqueue(WEBHOOK_DELIVERY_QUEUE, { ...payload }, { id: deliveryTaskId(event.eventId, endpoint.endpointId) });
  }
  await webhookEventRef(scope, event.eventId).update({ fannedOutAt: now });
  outboxLogs.fannedOut(scope.projectId, scope.env, event.eventId, event.type, targets.length);
  return targets.length;
}

export type FanoutOutcome = 'fanned_out' | 'already_fanned_out' | 'no_event';

/** Fans out one event by id, unless it is gone or already fanned out. */
export async function fanOutEvent(scope: EnvScope, tasks: TaskQueue, eventId: string, now: number): Promise<FanoutOutcome> {
  const snapshot = await scope.get(webhookEventRef(scope, eventId));
  // Not there: expired by its TTL, or the recording transaction never committed (an id is only ever written with its change).
  if (!snapshot.exists) return 'no_event';
  const event = snapshot.data()!;
  if (event.fannedOutAt !== null) return 'already_fanned_out';
  await fanOut(scope, tasks, event, await listEndpoints(scope), now);
  return 'fanned_out';
}

/** The `webhookFanout` queue's handler: a malformed payload is dropped (retrying cannot fix it). */
export async function webhookFanoutHandler(payload: Record<string, unknown>, deps: BackgroundDeps): Promise<void> {
  if (!isFanoutPayload(payload)) return;
  await fanOutEvent(new EnvScope(deps.db, payload.projectId, payload.env), deps.tasks, payload.eventId, deps.clock.now());
}
