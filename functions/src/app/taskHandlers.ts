import { resolveEventIdentities } from '../events/resolution';
import { erasureTaskHandler } from '../retention/erasure';
import { deliverWebhookTask } from '../webhooks/deliver';
import { webhookFanoutHandler } from '../webhooks/fanout';
import type { QueueName } from '../tasks/queue';

/** What the handlers below take, together (app/deps.ts's RootDeps has it all; the compiler checks). */
export type TaskDeps = Parameters<typeof resolveEventIdentities>[1] &
  Parameters<typeof erasureTaskHandler>[1] &
  Parameters<typeof webhookFanoutHandler>[1] &
  Parameters<typeof deliverWebhookTask>[1];

/** A task handler: throw to have the task retried, return when it is done (or to drop it). */
export type TaskHandler = (payload: Record<string, unknown>, deps: TaskDeps) => Promise<void>;

/**
 * The handler of each queue. Capability folders own their handlers; this table only wires
 * them to queue names, for the Cloud Tasks functions in index.ts and the in-process queue alike.
 */
export const TASK_HANDLERS: Partial<Record<QueueName, TaskHandler>> = {
  identityResolution: resolveEventIdentities,
  erasure: erasureTaskHandler,
  webhookFanout: webhookFanoutHandler,
  webhookDelivery: deliverWebhookTask,
};

export async function runTask(queue: QueueName, payload: Record<string, unknown>, deps: TaskDeps): Promise<void> {
  const handler = TASK_HANDLERS[queue];
  if (!handler) throw new Error(`no handler registered for queue ${queue}`);
  await handler(payload, deps);
}
