import type { Timestamp } from 'firebase-admin/firestore';
import type { Env, WireEnv } from '../store/env';
import type { TEST_EVENT_TYPE, WebhookEventType } from './model';
import { storedRecord } from '../store/converters';

/**
 * The outbound-webhook outbox and its delivery tasks: the contract between the side that
 * records events (in the transaction that made the change) and the side that delivers them.
 */

/** Every type a delivery can carry: the subscribable ones and `webhook.test`. */
export type OutboundEventType = WebhookEventType | typeof TEST_EVENT_TYPE;

/** The JSON body sent to an endpoint (issue 13 §2), byte-for-byte what is signed. */
export interface WebhookEventPayload {
  id: string;
  object: 'event';
  type: OutboundEventType;
  /** Unix milliseconds. */
  created: number;
  env: WireEnv;
  projectId: string;
  apiVersion: 'v1';
  data: Record<string, unknown>;
}

/** `projects/{p}/envs/{env}/webhookEvents/{evt_…}`: one record per event, the outbox. */
export const WEBHOOK_EVENTS = 'webhookEvents';

export interface WebhookEventRecord {
  eventId: string;
  projectId: string;
  env: Env;
  type: OutboundEventType;
  payload: WebhookEventPayload;
  /** Unix milliseconds. */
  createdAt: number;
  /** Set when a delivery task was enqueued for every endpoint it goes to; null until then (the relay's work list). */
  fannedOutAt: number | null;
  /** Only for `webhook.test`: the one endpoint it is for. null: every enabled, subscribed endpoint of the partition. */
  endpointId: string | null;
  /** Removed by the TTL policy with its delivery records (30 days). */
  expiresAt: Timestamp;
  /** Entitlement events only: the entitlement change record the event was built from (its id derives from it). */
  changeId?: string;
}

/** The Cloud Tasks queue (task-queue function) and in-process queue name of deliveries. */
export const WEBHOOK_DELIVERY_QUEUE = 'webhookDelivery';

/** One task per (event, endpoint) and, for replays, per replay request. */
export interface DeliveryTaskPayload {
  projectId: string;
  env: Env;
  eventId: string;
  endpointId: string;
}

/** Deterministic task id: a second fan-out of the same event never sends twice. */
export function deliveryTaskId(eventId: string, endpointId: string, replay: string | null = null): string {
  return replay ? `${eventId}-${endpointId}-replay-${replay}` : `${eventId}-${endpointId}`;
}

/** Outbox records and delivery records are kept this long (issue 13 §4). */
export const WEBHOOK_RECORD_RETENTION_DAYS = 30;

export const webhookEventConverter = storedRecord<WebhookEventRecord>();
