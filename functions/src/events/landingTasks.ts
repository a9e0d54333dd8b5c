import type { Timestamp } from 'firebase-admin/firestore';
import type { Env } from '../store/env';
import type { TaskQueue } from '../tasks/queue';
import { identityResolutionTask, MAX_BATCHES_PER_TASK, type PendingBatch } from './resolutionTask';

/**
 * The identity-resolution tasks of landed batches, shared by the landings of one partition whose
 * commits completed in the same turn of the event loop: they are enqueued together once that
 * turn's I/O has been handled (`setImmediate`), up to MAX_BATCHES_PER_TASK batches per task.
 *
 * Why: each enqueue is a Cloud Tasks API call (~0.5 ms of the request's CPU) and each task a run
 * of the task function with its own reads and commit; landings that finish together under load
 * need neither twice. Nothing waits for company: a landing alone is enqueued at the end of its
 * turn, as it would have been, so an idle instance adds no latency and a busy one groups more.
 *
 * Guarantees: a task is enqueued only after every batch it names was committed (each landing
 * arrives here after its own commit); a task never spans two partitions (the key is the
 * partition); a landing's promise settles once every task naming one of its batches is enqueued,
 * and rejects if any of them failed, so every request of a failed group fails and its client's
 * retry lands and enqueues again (a lost enqueue in between is the retention sweep's).
 */
export class LandingTasks {
  /** Not a cache: a partition's entry lives until the end of the turn it was made in. */
  private readonly waiting = new Map<string, WaitingPartition>();

  constructor(private readonly queue: TaskQueue) {}

  /** Resolves once the tasks storing these (committed) batches are enqueued. */
  enqueue(projectId: string, env: Env, batchDocIds: readonly string[], landedAt: Timestamp): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const key = `${projectId}/${env}`;
      let partition = this.waiting.get(key);
      if (!partition) {
        partition = { projectId, env, landings: [] };
        this.waiting.set(key, partition);
        setImmediate(() => this.flush(key));
      }
      partition.landings.push({ batches: batchDocIds.map((batchDocId) => ({ batchDocId, landedAt })), resolve, reject });
    });
  }

  private flush(key: string): void {
    const partition = this.waiting.get(key);
    if (!partition) return;
    this.waiting.delete(key);
    const sent = new Map<WaitingLanding, Promise<unknown>[]>();
    for (const group of groupIntoTasks(partition.landings)) {
      const task = identityResolutionTask(partition.projectId, partition.env, group.batches);
      const enqueued = Promise.resolve().then(() => this.queue.enqueue('identityResolution', task.payload, { id: task.id }));
      for (const landing of group.landings) sent.set(landing, [...(sent.get(landing) ?? []), enqueued]);
    }
    for (const [landing, tasks] of sent) {
      Promise.all(tasks).then(
        () => landing.resolve(),
        (err: unknown) => landing.reject(err),
      );
    }
  }
}

interface WaitingLanding {
  batches: PendingBatch[];
  resolve(): void;
  reject(err: unknown): void;
}

interface WaitingPartition {
  projectId: string;
  env: Env;
  landings: WaitingLanding[];
}

/**
 * Packs the landings' batches, in arrival order, into tasks of at most MAX_BATCHES_PER_TASK: each
 * task with the landings it carries a batch of (a landing of several batches may span two). A
 * batch document named twice (a retry landing beside the first attempt: the same document,
 * written again) is stored once, by the task that names it first, and both landings wait for it.
 * @internal exported for its unit test
 */
export function groupIntoTasks<L extends { batches: readonly PendingBatch[] }>(landings: readonly L[]): { batches: PendingBatch[]; landings: L[] }[] {
  const tasks: { batches: PendingBatch[]; landings: L[] }[] = [];
  const taskOf = new Map<string, { batches: PendingBatch[]; landings: L[] }>();
  for (const landing of landings) {
    for (const batch of landing.batches) {
      let task = taskOf.get(batch.batchDocId);
      if (!task) {
        task = tasks[tasks.length - 1];
        if (!task || task.batches.length >= MAX_BATCHES_PER_TASK) {
          task = { batches: [], landings: [] };
          tasks.push(task);
        }
        task.batches.push(batch);
        taskOf.set(batch.batchDocId, task);
      }
      if (!task.landings.includes(landing)) task.landings.push(landing);
    }
  }
  return tasks;
}

const perQueue = new WeakMap<TaskQueue, LandingTasks>();
/** The process's landing tasks for this queue (one per Deps' queue, as the error-pass memory is per Deps). */
export const landingTasksFor = (queue: TaskQueue): LandingTasks => {
  let tasks = perQueue.get(queue);
  if (!tasks) {
    tasks = new LandingTasks(queue);
    perQueue.set(queue, tasks);
  }
  return tasks;
};
