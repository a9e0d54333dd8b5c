import { getFunctions } from 'firebase-admin/functions';
import type { EnqueueOptions, EnqueueResult, QueueName, TaskQueue } from './queue';

/** Function names of the task-queue functions exported from index.ts, per queue. */
export const QUEUE_FUNCTIONS: Record<QueueName, string> = {
  erasure: 'erasureTask',
  identityResolution: 'identityResolutionTask',
  webhookFanout: 'webhookFanoutTask',
  webhookDelivery: 'webhookDeliveryTask',
};

/** Production adapter: Cloud Tasks queues behind `onTaskDispatched` functions. */
export class CloudTasksQueue implements TaskQueue {
  constructor(private readonly region: string) {}

  async enqueue(queue: QueueName, payload: Record<string, unknown>, options: EnqueueOptions): Promise<EnqueueResult> {
    const target = `locations/${this.region}/functions/${QUEUE_FUNCTIONS[queue]}`;
    try {
      await getFunctions().taskQueue(target).enqueue(payload, { id: options.id, scheduleDelaySeconds: options.scheduleDelaySeconds });
      return 'enqueued';
    } catch (err) {
      if ((err as { code?: string }).code === 'functions/task-already-exists') return 'duplicate';
      throw err;
    }
  }
}
