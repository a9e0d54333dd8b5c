import { Timestamp } from 'firebase-admin/firestore';
import { DAY } from '../clock';
import { DomainError } from '../errors/domain';
import { randomToken } from '../ids/random';
import { toWireEnv } from '../store/env';
import type { EnvScope } from '../store/scope';
import type { EnqueueResult, TaskQueue } from '../tasks/queue';
import { deliveriesCollection, deliveryIdOf, deliveryRef, type DeliveryRecord, type DeliveryTask } from './deliveryModel';
import { endpointRef, endpointsCollection } from './endpoints';
import { webhookEventRef } from './outbox';
import { deliveryTaskId, WEBHOOK_DELIVERY_QUEUE, WEBHOOK_RECORD_RETENTION_DAYS, type WebhookEventRecord } from './eventModel';
import { TEST_EVENT_TYPE, type WebhookEndpointRecord } from './model';
import { WEBHOOK_EVENT_ID } from '../ids';

/**
 * Operator commands on deliveries (`tessera webhooks test|replay|deliveries`). `test` and
 * `replay` enqueue their delivery tasks themselves (no fan-out involved): a test event goes to
 * its one endpoint; a replay is a new delivery (its own record and attempt count) of an
 * existing event, to the given endpoint or to every enabled endpoint that receives its type.
 */

export interface OperatorDeliveryDeps {
  tasks: TaskQueue;
  now: number;
}

/** A delivery record as listed: times in Unix milliseconds. */
export type DeliveryView = Omit<DeliveryRecord, 'expiresAt'> & { expiresAt: number };

const toDeliveryView = (record: DeliveryRecord): DeliveryView => ({ ...record, expiresAt: record.expiresAt.toMillis() });

const newEventId = (): string => `${WEBHOOK_EVENT_ID.prefix}${randomToken(24)}`;

function requireEventId(value: string): string {
  if (!WEBHOOK_EVENT_ID.pattern.test(value)) throw new DomainError('invalid_argument', `'${value.slice(0, 80)}' is not a webhook event id (evt_…).`);
  return value;
}

async function readEndpoint(scope: EnvScope, endpointId: string): Promise<WebhookEndpointRecord> {
  const snapshot = await scope.get(endpointRef(scope, endpointId));
  if (!snapshot.exists) throw new DomainError('not_found', `No webhook endpoint ${endpointId}.`);
  return snapshot.data()!;
}

function requireEnabled(endpoint: WebhookEndpointRecord): void {
  if (endpoint.disabled) throw new DomainError('conflict', `Webhook endpoint ${endpoint.endpointId} is disabled (${endpoint.disabled.reason}); enable it first.`);
}

const receives = (endpoint: WebhookEndpointRecord, event: WebhookEventRecord): boolean =>
  event.type === TEST_EVENT_TYPE ? event.endpointId === endpoint.endpointId : event.endpointId === null && (endpoint.eventTypes.length === 0 || (endpoint.eventTypes as string[]).includes(event.type));

async function enqueueDelivery(tasks: TaskQueue, task: DeliveryTask): Promise<EnqueueResult> {
  return tasks.enqueue(WEBHOOK_DELIVERY_QUEUE, { ...task }, { id: deliveryTaskId(task.eventId, task.endpointId, task.replay ?? null) });
}

/**
 * Records a `webhook.test` event for one endpoint and enqueues its delivery. The record is
 * written with `fannedOutAt: null` and marked once its task is queued, so a crash in between
 * leaves it to the outbox relay, which queues the same task id.
 */
export async function sendTestEvent(scope: EnvScope, endpointId: string, deps: OperatorDeliveryDeps): Promise<{ eventId: string; endpointId: string; deliveryId: string; task: EnqueueResult }> {
  const endpoint = await readEndpoint(scope, endpointId);
  requireEnabled(endpoint);
  const eventId = newEventId();
  const record: WebhookEventRecord = {
    eventId,
    projectId: scope.projectId,
    env: scope.env,
    type: TEST_EVENT_TYPE,
    payload: {
      id: eventId,
      object: 'event',
      type: TEST_EVENT_TYPE,
      created: deps.now,
      env: toWireEnv(scope.env),
      projectId: scope.projectId,
      apiVersion: 'v1',
      data: { endpointId, message: 'A test event sent by `tessera webhooks test`: your endpoint receives and verifies Tessera webhooks.' },
    },
    createdAt: deps.now,
    fannedOutAt: null,
    endpointId,
    expiresAt: Timestamp.fromMillis(deps.now + WEBHOOK_RECORD_RETENTION_DAYS * DAY),
  };
  const eventRef = webhookEventRef(scope, eventId);
  await eventRef.create(record);
  const task: DeliveryTask = { projectId: scope.projectId, env: scope.env, eventId, endpointId };
  const queued = await enqueueDelivery(deps.tasks, task);
  await eventRef.update({ fannedOutAt: deps.now });
  return { eventId, endpointId, deliveryId: deliveryIdOf(task), task: queued };
}

/** Enqueues a new delivery of an event of `scope`: to `endpointId`, or to every enabled endpoint that receives it. */
export async function replayEvent(scope: EnvScope, eventId: string, endpointId: string | null, deps: OperatorDeliveryDeps): Promise<{ eventId: string; replay: string; deliveries: { endpointId: string; deliveryId: string; task: EnqueueResult }[] }> {
  const snapshot = await scope.get(webhookEventRef(scope, requireEventId(eventId)));
  if (!snapshot.exists) throw new DomainError('not_found', `No webhook event ${eventId} in project ${scope.projectId} (${scope.env}).`);
  const event = snapshot.data()!;
  let targets: WebhookEndpointRecord[];
  if (endpointId) {
    const endpoint = await readEndpoint(scope, endpointId);
    requireEnabled(endpoint);
    if (!receives(endpoint, event)) throw new DomainError('invalid_argument', `Webhook endpoint ${endpointId} does not receive ${event.type} events${event.type === TEST_EVENT_TYPE ? ' of another endpoint' : ''}.`);
    targets = [endpoint];
  } else {
    const all = await scope.query(endpointsCollection(scope));
    targets = all.docs.map((d) => d.data()).filter((e) => !e.disabled && receives(e, event));
    if (targets.length === 0) throw new DomainError('conflict', `No enabled webhook endpoint of project ${scope.projectId} (${scope.env}) receives ${event.type} events.`);
  }
  const replay = randomToken(12);
  const deliveries = [];
  for (const endpoint of targets) {
    const task: DeliveryTask = { projectId: scope.projectId, env: scope.env, eventId, endpointId: endpoint.endpointId, replay };
    deliveries.push({ endpointId: endpoint.endpointId, deliveryId: deliveryIdOf(task), task: await enqueueDelivery(deps.tasks, task) });
  }
  return { eventId, replay, deliveries };
}

/** An endpoint's deliveries, newest first (or those of one event). */
export async function listDeliveries(scope: EnvScope, endpointId: string, eventId: string | null, limit = 50): Promise<DeliveryView[]> {
  await readEndpoint(scope, endpointId);
  let query = deliveriesCollection(scope).where('endpointId', '==', endpointId);
  query = eventId ? query.where('eventId', '==', requireEventId(eventId)) : query.orderBy('createdAt', 'desc').limit(limit);
  const snapshot = await scope.query(query);
  return snapshot.docs
    .map((d) => d.data())
    .sort((a, b) => b.createdAt - a.createdAt || a.deliveryId.localeCompare(b.deliveryId))
    .map(toDeliveryView);
}

/** One delivery record, when it exists. */
export async function readDelivery(scope: EnvScope, deliveryId: string): Promise<DeliveryView | null> {
  const snapshot = await scope.get(deliveryRef(scope, deliveryId));
  const record = snapshot.data();
  return record ? toDeliveryView(record) : null;
}
