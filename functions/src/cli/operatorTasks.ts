import type { Firestore } from 'firebase-admin/firestore';
import type { Clock } from '../clock';
import { loadSettings } from '../config/settings';
import { deployRegion } from '../config/region';
import { createSecretStore } from '../secrets/store';
import { RetryLaterError, type EnqueueOptions, type EnqueueResult, type QueueName, type TaskQueue } from '../tasks/queue';

/**
 * Where operator commands enqueue tasks (`webhooks test|replay`). On production (no emulator):
 * Cloud Tasks, in the region of `TESSERA_REGION` (as in functions/.env), which runs and retries
 * them. Locally there is no queue shared with the running stack, so this process runs each task
 * due now and the command waits for it (`settle`) before printing; a failed attempt's retry is
 * not run (the record shows `nextRetryAt`, when a queue would retry): send again with
 * `webhooks replay`.
 */
export interface OperatorTasks {
  tasks: TaskQueue;
  /** Waits for the tasks this process runs; true when it ran them (local), false when a queue service does. */
  settle(): Promise<boolean>;
}

export async function operatorTasks(db: Firestore, clock: Clock, given?: TaskQueue): Promise<OperatorTasks> {
  if (given) return { tasks: given, settle: async () => false };
  if (!process.env.FIRESTORE_EMULATOR_HOST) {
    const { CloudTasksQueue } = await import('../tasks/cloudTasksQueue');
    return { tasks: new CloudTasksQueue(deployRegion()), settle: async () => false };
  }
  const { deliverWebhookTask } = await import('../webhooks/deliver');
  const queue: RunNowQueue = new RunNowQueue(async (name, payload) => {
    if (name !== 'webhookDelivery') throw new Error(`the CLI does not run ${name} tasks`);
    await deliverWebhookTask(payload, { db, clock, secrets: createSecretStore(clock), settings: loadSettings() });
  });
  return { tasks: queue, settle: async () => (await queue.settle(), true) };
}

/** Runs a task due now in this process (once per id); a delayed one, or the retry a task asks for, is left to its record. */
export class RunNowQueue implements TaskQueue {
  private readonly seen = new Set<string>();
  private readonly running: Promise<void>[] = [];

  constructor(private readonly run: (queue: QueueName, payload: Record<string, unknown>) => Promise<void>) {}

  async enqueue(queue: QueueName, payload: Record<string, unknown>, options: EnqueueOptions): Promise<EnqueueResult> {
    const key = `${queue}/${options.id}`;
    if (this.seen.has(key)) return 'duplicate';
    this.seen.add(key);
    if (!options.scheduleDelaySeconds) this.running.push(this.run(queue, payload).catch(ignoreRetryRequest));
    return 'enqueued';
  }

  async settle(): Promise<void> {
    for (let done = 0; done < this.running.length; done += 1) await this.running[done];
  }
}

/** A task that asks to be retried (a receiver's failure) has done its part here: its record says so. */
function ignoreRetryRequest(err: unknown): void {
  if (!(err instanceof RetryLaterError)) throw err;
}
