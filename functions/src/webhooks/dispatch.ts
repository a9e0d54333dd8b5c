import { isEnv, type Env } from '../store/env';
import type { TaskQueue } from '../tasks/queue';
import { outboxLogs } from './outboxLogs';
import { PROJECT_ID, WEBHOOK_EVENT_ID } from '../ids';

/**
 * After the commit of a transaction that recorded webhook events: one `webhookFanout` task per
 * event (task id = event id), so the request never waits on listing endpoints. A failure to
 * enqueue is logged, not thrown: the change is committed and its event is in the outbox, where
 * the relay (relay.ts) finds it while `fannedOutAt` is still null.
 */
const WEBHOOK_FANOUT_QUEUE = 'webhookFanout';

export interface FanoutTaskPayload {
  projectId: string;
  env: Env;
  eventId: string;
}

export async function dispatchWebhookEvents(tasks: TaskQueue, partition: { projectId: string; env: Env }, eventIds: readonly string[]): Promise<void> {
  await Promise.all(
    eventIds.map(async (eventId) => {
      const payload: FanoutTaskPayload = { projectId: partition.projectId, env: partition.env, eventId };
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
