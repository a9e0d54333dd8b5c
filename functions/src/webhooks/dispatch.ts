import { isEnv, toWireEnv, type Env } from '../store/env';
import type { TaskQueue } from '../tasks/queue';
import type { DirectoryEntry } from './directory';
import type { WebhookEventPayload } from './eventModel';
import { outboxLogs } from './outboxLogs';
import { PROJECT_ID, WEBHOOK_EVENT_ID } from '../ids';

/**
 * After the commit of a transaction that recorded webhook events: one `webhookFanout` task per
 * event that needs one (task id = event id), so the request never waits on listing endpoints. A
 * failure to enqueue is logged, not thrown: the change is committed and its event is in the
 * outbox, where the relay (relay.ts) finds it while `fannedOutAt` is still null.
 */
const WEBHOOK_FANOUT_QUEUE = 'webhookFanout';

/**
 * What the change's transaction knew of an event's fan-out: the event's payload and the targets
 * the partition's directory named, as read in that transaction (directory.ts). The fan-out task
 * that starts soon after the change claims from it at once instead of reading the event and the
 * endpoints first (fanout.ts).
 */
export interface FanoutSnapshot {
  payload: WebhookEventPayload;
  targets: DirectoryEntry[];
}

/** An event to fan out after the commit; `snapshot` null: the task reads the event and the endpoints. */
export interface WebhookFanout {
  eventId: string;
  snapshot: FanoutSnapshot | null;
}

export interface FanoutTaskPayload {
  projectId: string;
  env: Env;
  eventId: string;
  snapshot?: FanoutSnapshot;
}

export async function dispatchWebhookEvents(tasks: TaskQueue, partition: { projectId: string; env: Env }, fanouts: readonly WebhookFanout[]): Promise<void> {
  await Promise.all(
    fanouts.map(async ({ eventId, snapshot }) => {
      const payload: FanoutTaskPayload = { projectId: partition.projectId, env: partition.env, eventId, ...(snapshot ? { snapshot } : {}) };
      try {
        await tasks.enqueue(WEBHOOK_FANOUT_QUEUE, { ...payload }, { id: eventId });
      } catch (err) {
        outboxLogs.fanoutEnqueueFailed(partition.projectId, partition.env, eventId, err instanceof Error ? err.message : String(err));
      }
    }),
  );
}

export function isFanoutPayload(value: Record<string, unknown>): value is Record<string, unknown> & FanoutTaskPayload {
  return (
    PROJECT_ID.is(value.projectId) &&
    isEnv(value.env) &&
    WEBHOOK_EVENT_ID.is(value.eventId)
  );
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isSecretRef = (value: unknown): boolean => isObject(value) && typeof value.ref === 'string' && Number.isInteger(value.generation);

/**
 * The task's snapshot when it is whole and of the task's own partition and event; null otherwise
 * (the task then reads, as one without a snapshot does). It comes from this service's own
 * enqueue; checked all the same, so a malformed one can never send anything.
 */
export function snapshotOf(payload: FanoutTaskPayload): FanoutSnapshot | null {
  const snapshot: unknown = payload.snapshot;
  if (!isObject(snapshot) || !isObject(snapshot.payload) || !Array.isArray(snapshot.targets)) return null;
  const event = snapshot.payload;
  if (event.id !== payload.eventId || event.projectId !== payload.projectId || event.env !== toWireEnv(payload.env) || typeof event.type !== 'string' || typeof event.created !== 'number') return null;
  const targetsOk = snapshot.targets.every(
    (t: unknown) =>
      isObject(t) &&
      typeof t.endpointId === 'string' &&
      typeof t.url === 'string' &&
      Array.isArray(t.eventTypes) &&
      (t.failingSince === null || typeof t.failingSince === 'number') &&
      isSecretRef(t.secret) &&
      (t.previousSecret === null || (isSecretRef(t.previousSecret) && typeof (t.previousSecret as Record<string, unknown>).expiresAt === 'number')),
  );
  return targetsOk ? (snapshot as unknown as FanoutSnapshot) : null;
}
