import type { Env } from '../store/env';
import type { TaskQueue } from '../tasks/queue';
import { landingResolutionTask, MAX_BATCHES_PER_TASK, MAX_LANDINGS_PER_TASK } from './resolutionTask';

/** A landing whose commit has been sent: its request (the batches' `requestId`), its batch documents, and when. */
export interface SentLanding {
  requestId: string;
  batchDocIds: readonly string[];
  /** The ingest clock's time once the commit was sent (Unix ms). */
  sentAt: number;
}

/**
 * The identity-resolution tasks of landings, sent beside their commits and shared by the
 * landings of one partition that reach here in the same turn of the event loop: they are
 * enqueued together once that turn's I/O has been handled (`setImmediate`), up to
 * MAX_BATCHES_PER_TASK batches per task.
 *
 * Why: each enqueue is a Cloud Tasks API call (~0.5 ms of the request's CPU) and each task a run
 * of the task function with its own reads and commit; landings that arrive together under load
 * need neither twice. Nothing waits for company: a landing alone is enqueued at the end of its
 * turn, so an idle instance adds no latency and a busy one groups more.
 *
 * Guarantees: a task never spans two partitions (the key is the partition); it names every
 * landing it stands for and when their commits had all been sent, so that it waits for exactly
 * those copies if it runs before they are visible (resolution.ts); a landing's promise settles
 * once every task naming one of its batches is enqueued, and rejects if any of them failed, so
 * every request of a failed group fails and its client's retry lands and enqueues again (a batch
 * committed meanwhile whose task was never enqueued is the retention sweep's).
 */
export class LandingTasks {
  /** Not a cache: a partition's entry lives until the end of the turn it was made in. */
  private readonly waiting = new Map<string, WaitingPartition>();

  constructor(private readonly queue: TaskQueue) {}

  /** Resolves once the tasks storing this landing's batches are enqueued. */
  enqueue(projectId: string, env: Env, landing: SentLanding): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const key = `${projectId}/${env}`;
      let partition = this.waiting.get(key);
      if (!partition) {
        partition = { projectId, env, landings: [] };
        this.waiting.set(key, partition);
        setImmediate(() => this.flush(key));
      }
      partition.landings.push({ ...landing, resolve, reject });
    });
  }

  private flush(key: string): void {
    const partition = this.waiting.get(key);
    if (!partition) return;
    this.waiting.delete(key);
    const sent = new Map<WaitingLanding, Promise<unknown>[]>();
    for (const group of groupIntoTasks(partition.landings)) {
      const sentAt = Math.max(...group.landings.map((landing) => landing.sentAt));
      const task = landingResolutionTask(partition.projectId, partition.env, group.batchDocIds, group.landings.map((landing) => landing.requestId), sentAt);
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

interface WaitingLanding extends SentLanding {
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
 * written again) is named once, by the task that names it first, which then stands for both
 * landings (either copy may be the one left visible); a task stands for at most
 * MAX_LANDINGS_PER_TASK landings, beyond which a repeated batch is named by another task too.
 * @internal exported for its unit test
 */
export function groupIntoTasks<L extends { batchDocIds: readonly string[] }>(landings: readonly L[]): { batchDocIds: string[]; landings: L[] }[] {
  const tasks: { batchDocIds: string[]; landings: L[] }[] = [];
  const taskOf = new Map<string, { batchDocIds: string[]; landings: L[] }>();
  const hasRoomFor = (task: { landings: L[] }, landing: L) => task.landings.includes(landing) || task.landings.length < MAX_LANDINGS_PER_TASK;
  for (const landing of landings) {
    for (const batchDocId of landing.batchDocIds) {
      let task = taskOf.get(batchDocId);
      if (!task || !hasRoomFor(task, landing)) {
        task = tasks[tasks.length - 1];
        if (!task || task.batchDocIds.length >= MAX_BATCHES_PER_TASK || !hasRoomFor(task, landing)) {
          task = { batchDocIds: [], landings: [] };
          tasks.push(task);
        }
        task.batchDocIds.push(batchDocId);
        taskOf.set(batchDocId, task);
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
