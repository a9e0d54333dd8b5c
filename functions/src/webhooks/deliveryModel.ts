import type { Timestamp } from 'firebase-admin/firestore';
import type { Env } from '../store/env';
import { isEnv } from '../store/env';
import type { EnvScope } from '../store/scope';
import type { DeliveryTaskPayload, OutboundEventType } from './eventModel';
import { deliveryTaskId } from './eventModel';
import { PROJECT_ID } from '../ids';
import { storedRecord } from '../store/converters';

/**
 * Delivery records: `projects/{p}/envs/{env}/webhookDeliveries/{deliveryId}`, one per (event,
 * endpoint) and one per replay, holding every attempt. The id is the delivery's first task id
 * (`deliveryTaskId`), so the record and its task are found from each other.
 */
export const WEBHOOK_DELIVERIES = 'webhookDeliveries';

export type DeliveryState = 'pending' | 'delivered' | 'failed';

/**
 * What went wrong with one attempt: `http_status` (an answer other than 2xx or 410, a redirect
 * included: never followed), `gone` (410), `timeout` (no complete answer within the timeout),
 * `connection` (refused, reset, unreachable), `tls` (certificate or handshake),
 * `destination_refused` (the host resolved to a refused address, or did not resolve),
 * `interrupted` (the run that made the attempt died before recording its answer: it may or may
 * not have reached the receiver).
 */
export type AttemptErrorKind = 'http_status' | 'gone' | 'timeout' | 'connection' | 'tls' | 'destination_refused' | 'interrupted';

export interface DeliveryAttempt {
  /** 1-based, as sent in `Service-Webhook-Attempt`. */
  attempt: number;
  /** Unix milliseconds when the attempt started. */
  at: number;
  /** null when no answer came. */
  statusCode: number | null;
  latencyMs: number;
  /** The first 1 KB of the answer's body (UTF-8), null when none. */
  responseBody: string | null;
  error: AttemptErrorKind | null;
  /** A short reason for `error` (e.g. `ECONNREFUSED`, the refused address); never a secret. */
  errorDetail: string | null;
  /** Generations of the secrets that signed it, in header order. */
  secretGenerations: number[];
}

/** Why a delivery ended without being delivered. */
export type DeliveryFailure = 'retries_exhausted' | 'endpoint_gone' | 'endpoint_disabled';

export interface DeliveryRecord {
  deliveryId: string;
  projectId: string;
  env: Env;
  eventId: string;
  eventType: OutboundEventType;
  endpointId: string;
  /** The replay request this delivery answers, null for the event's own delivery. */
  replay: string | null;
  state: DeliveryState;
  /** The most recent attempts, oldest first (at most MAX_KEPT_ATTEMPTS); `attemptCount` counts all. */
  attempts: DeliveryAttempt[];
  attemptCount: number;
  firstAttemptAt: number | null;
  /** When the queue will retry (its retryConfig backoff after the last failure); null unless pending. */
  nextRetryAt: number | null;
  /**
   * The attempt being made now: claimed (and counted in `attemptCount`) in a transaction before
   * sending, cleared when its answer is recorded. A second run of the task while it is set does
   * not send; after `expiresAt` (the attempt timeout and a margin) the run is presumed dead and
   * its attempt is recorded as `interrupted`. Absent on records written before claims existed.
   */
  inFlight?: { attempt: number; startedAt: number; expiresAt: number } | null;
  /**
   * Attempts made before the delivery task's first run: 1 when the fan-out made the first
   * attempt itself, else 0 (absent on older records). The queue's backoff counts the task's own
   * failures only, so the recorded `nextRetryAt` after attempt n is the queue's delay after
   * n − attemptsBeforeTask failures (deliveryOutcome.ts `retryDelayAfter`).
   */
  attemptsBeforeTask?: number;
  deliveredAt: number | null;
  failedAt: number | null;
  failure: DeliveryFailure | null;
  createdAt: number;
  updatedAt: number;
  /** Removed by the TTL policy 30 days after creation (firestore.indexes.json). */
  expiresAt: Timestamp;
}

/** More than the at most 25 attempts of a delivery (tasks/queue.ts MAX_DELIVERY_ATTEMPTS); older ones are dropped first. */
export const MAX_KEPT_ATTEMPTS = 50;
export const RESPONSE_BODY_BYTES = 1024;

/**
 * A delivery task: the contract's payload, plus the replay it belongs to (replays only). The
 * attempt number is not in the task: the delivery record counts attempts (a claim per attempt).
 * `attempt` is accepted and ignored: retry tasks queued before the queue retried deliveries.
 */
export interface DeliveryTask extends DeliveryTaskPayload {
  replay?: string;
  attempt?: number;
}

const ID = /^[A-Za-z0-9_-]{1,128}$/;

/** A task payload as queued, or null when it is not one (dropped, never retried). */
export function parseDeliveryTask(payload: Record<string, unknown>): DeliveryTask | null {
  const { projectId, env, eventId, endpointId, replay, attempt } = payload;
  const ok =
    PROJECT_ID.is(projectId) && isEnv(env) &&
    typeof eventId === 'string' && ID.test(eventId) && typeof endpointId === 'string' && ID.test(endpointId) &&
    (replay === undefined || (typeof replay === 'string' && ID.test(replay))) &&
    (attempt === undefined || (typeof attempt === 'number' && Number.isInteger(attempt) && attempt >= 1));
  if (!ok) return null;
  return { projectId, env, eventId, endpointId, ...(replay === undefined ? {} : { replay }), ...(attempt === undefined ? {} : { attempt }) } as DeliveryTask;
}

export const deliveryIdOf = (task: Pick<DeliveryTask, 'eventId' | 'endpointId' | 'replay'>): string => deliveryTaskId(task.eventId, task.endpointId, task.replay ?? null);

export const deliveryRef = (scope: EnvScope, deliveryId: string) => scope.doc(WEBHOOK_DELIVERIES, deliveryId).withConverter(deliveryConverter);
export const deliveriesCollection = (scope: EnvScope) => scope.collection(WEBHOOK_DELIVERIES).withConverter(deliveryConverter);

export const deliveryConverter = storedRecord<DeliveryRecord>();
