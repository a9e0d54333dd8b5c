import * as logger from 'firebase-functions/logger';
import type { PendingTask, PendingTaskStore } from './pendingTasks';
import type { EnqueueOptions, EnqueueResult, QueueName, TaskQueue } from './queue';
import { policyBackoffSeconds, QUEUE_CONFIGS, RetryLaterError } from './queue';
import { outsideRequest } from '../store/roundTrips';

export type TaskRunner = (queue: QueueName, payload: Record<string, unknown>) => Promise<void>;

export interface InProcessOptions {
  /** Backoff before attempt n (1-based), every queue. Default: each queue's QUEUE_CONFIGS retryConfig. Tests pass 0 to retry at once (then `maxAttempts` alone ends the retries). */
  backoffMs?: (attempt: number) => number;
  /** Every queue, alone (tests). Default: each queue's retryConfig: `maxAttempts` and, when set, `maxRetrySeconds` from the first attempt, both reached (Cloud Tasks' rule). */
  maxAttempts?: number;
  /** Tasks of one queue running at once, every queue (tests). Default: see `concurrencyLimit`. */
  maxConcurrent?: number;
  /**
   * The process runs tasks only (the bench's task worker, standing in for the deployed task
   * functions' own instances): each queue's deployed `rateLimits` apply as they are. Default
   * (false): the process also serves requests, and a queue's `besideRequestsMaxConcurrent` caps it.
   */
  tasksOnly?: boolean;
  /**
   * Where tasks waiting for their time are kept (`npm start`: the local store), so that a
   * restart runs them (`resume()`). Without one, a stop forgets them (tests).
   */
  pending?: PendingTaskStore;
}

interface QueuedTask extends PendingTask {
  /** Resolves when the task is finished for good (done, given up, or handed to the store at stop). */
  finish: () => void;
  persisted: boolean;
}

/**
 * Local stand-in for Cloud Tasks with the same semantics and the same numbers (tasks/queue.ts
 * QUEUE_CONFIGS): de-duplication by task id (for the life of the process, and of the store's
 * waiting tasks), the queue's retryConfig (attempts, backoff, time limit; a throw means retry),
 * its rateLimits (at most `concurrencyLimit` running at once — `maxConcurrentDispatches`, capped
 * beside requests —, dispatches spaced by `maxDispatchesPerSecond`). A task waiting for its time holds a timer, never a slot, and is
 * kept in the pending store; `stop()` returns within its grace whatever is queued.
 * `drain()` waits until every queued task has finished (tests).
 */
export class InProcessTaskQueue implements TaskQueue {
  private readonly seen = new Set<string>();
  private readonly pendingDone = new Set<Promise<void>>();
  private readonly timers = new Map<string, { timer: NodeJS.Timeout; task: QueuedTask }>();
  private readonly runningTasks = new Map<string, { task: QueuedTask; done: Promise<void> }>();
  /** Due tasks between their timer (or enqueue) and a slot. */
  private readonly ready = new Map<string, QueuedTask>();
  private runner: TaskRunner | null = null;
  private readonly running = new Map<QueueName, number>();
  private readonly waiting = new Map<QueueName, { task: QueuedTask; start: () => void }[]>();
  /** Dispatch tokens per queue (Cloud Tasks' bucket: bursts of up to a second's worth, refilled at maxDispatchesPerSecond). */
  private readonly tokens = new Map<QueueName, { tokens: number; at: number }>();
  private stopping = false;

  constructor(private readonly options: InProcessOptions = {}) {}

  /** Connects the handlers (done once the dependencies they need exist). */
  attach(runner: TaskRunner): void {
    this.runner = runner;
  }

  async enqueue(queue: QueueName, payload: Record<string, unknown>, options: EnqueueOptions): Promise<EnqueueResult> {
    const key = `${queue}/${options.id}`;
    if (this.seen.has(key)) return 'duplicate';
    this.seen.add(key);
    const delayMs = (options.scheduleDelaySeconds ?? 0) * 1000;
    const task = this.track({ key, queue, id: options.id, payload, runAt: Date.now() + delayMs, attempt: 1, firstAttemptAt: null });
    // A task that waits is kept first, so that a stop before its time does not lose it.
    if (delayMs > 0 || this.stopping) await this.persist(task);
    if (!this.stopping) this.schedule(task);
    else task.finish();
    return 'enqueued';
  }

  /** Runs the tasks a previous process left waiting in the pending store (each at its time, or now if past). */
  async resume(): Promise<number> {
    if (!this.options.pending) return 0;
    const tasks = await this.options.pending.loadAll();
    for (const stored of tasks) {
      if (this.seen.has(stored.key)) continue;
      this.seen.add(stored.key);
      const task = this.track(stored);
      task.persisted = true;
      this.schedule(task);
    }
    return tasks.length;
  }

  /** Waits until every queued task has finished, its retries and delays included (tests). */
  async drain(): Promise<void> {
    while (this.pendingDone.size > 0) await Promise.allSettled([...this.pendingDone]);
  }

  /**
   * Stops within `graceMs`, whatever is queued: timers are cancelled (their tasks are in the
   * pending store), tasks waiting for a slot are handed to the store, running ones get the grace
   * to finish and are otherwise handed to the store too (handlers are idempotent: a task run
   * again after a restart finds its work done). Later enqueues only go to the store.
   */
  async stop(graceMs = 3000): Promise<void> {
    this.stopping = true;
    const handOver: QueuedTask[] = [];
    for (const { timer, task } of this.timers.values()) {
      clearTimeout(timer);
      handOver.push(task);
    }
    this.timers.clear();
    handOver.push(...this.ready.values());
    this.ready.clear();
    for (const waiting of this.waiting.values()) waiting.splice(0);
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([Promise.allSettled([...this.runningTasks.values()].map((r) => r.done)), graceOver]);
    clearTimeout(timer);
    handOver.push(...[...this.runningTasks.values()].map((r) => r.task));
    await Promise.allSettled(handOver.map((task) => this.persist(task)));
    for (const task of handOver) task.finish();
  }

  private track(stored: PendingTask): QueuedTask {
    let finish!: () => void;
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    this.pendingDone.add(done);
    void done.then(() => this.pendingDone.delete(done));
    return { ...stored, finish, persisted: false };
  }

  private schedule(task: QueuedTask): void {
    const wait = task.runAt - Date.now();
    if (wait <= 0) {
      // A task is its own unit of work (as a Cloud Task is): never part of the enqueuing request's,
      // and never run inside the enqueuing request's own tick.
      this.ready.set(task.key, task);
      void outsideRequest(() => Promise.resolve().then(() => this.dispatch(task)));
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(task.key);
      this.ready.set(task.key, task);
      void outsideRequest(() => this.dispatch(task));
    }, wait);
    this.timers.set(task.key, { timer, task });
  }

  private async dispatch(task: QueuedTask): Promise<void> {
    if (this.stopping) return; // stop() handed it to the store
    await this.takeSlot(task);
    this.ready.delete(task.key);
    if (this.stopping) {
      // It got its slot as the queue stopped: kept for the next start instead of run.
      this.freeSlot(task.queue);
      await this.persist(task).catch(() => undefined);
      return task.finish();
    }
    const done = this.runAndSettle(task);
    this.runningTasks.set(task.key, { task, done });
    await done;
    this.runningTasks.delete(task.key);
  }

  /** One run, then the task is finished, or scheduled again after the queue's backoff, or given up at its maximum. */
  private async runAndSettle(task: QueuedTask): Promise<void> {
    let succeeded = false;
    task.firstAttemptAt ??= Date.now();
    try {
      if (!this.runner) throw new Error('no task handlers attached');
      await this.runner(task.queue, task.payload);
      succeeded = true;
    } catch (err) {
      if (err instanceof RetryLaterError) logger.info('task asked to be retried', { queue: task.queue, id: task.id, attempt: task.attempt, detail: err.message });
      else logger.warn('task attempt failed', { queue: task.queue, id: task.id, attempt: task.attempt, detail: err instanceof Error ? err.message : String(err) });
    }
    this.freeSlot(task.queue);
    if (succeeded) return this.complete(task);
    const policy = QUEUE_CONFIGS[task.queue].retryConfig;
    const maxAttempts = this.options.maxAttempts ?? policy.maxAttempts;
    const next = task.attempt + 1;
    const wait = this.options.backoffMs ? this.options.backoffMs(next) : policyBackoffSeconds(policy, next) * 1000;
    // Cloud Tasks' rule: with both limits set, it retries until BOTH are reached. A test's
    // override of backoff or attempts has no time scale: its attempts alone end the retries.
    const attemptsUsed = next > maxAttempts;
    const overridden = this.options.maxAttempts !== undefined || this.options.backoffMs !== undefined;
    const timeUsed = policy.maxRetrySeconds === undefined || Date.now() + wait > task.firstAttemptAt + policy.maxRetrySeconds * 1000;
    if (attemptsUsed && (overridden || timeUsed)) {
      logger.error('task gave up after max attempts', { queue: task.queue, id: task.id });
      return this.complete(task);
    }
    task.attempt = next;
    task.runAt = Date.now() + wait;
    // A retry that waits is kept first, so that a stop during its backoff does not lose it.
    if (wait > 0 || this.stopping) await this.persist(task).catch((err) => logger.warn('could not keep a task retry', { queue: task.queue, id: task.id, detail: String(err) }));
    if (this.stopping) return task.finish();
    this.schedule(task);
  }

  private async complete(task: QueuedTask): Promise<void> {
    if (task.persisted && this.options.pending) {
      await this.options.pending.remove(task.key).catch((err) => logger.warn('could not remove a finished task', { queue: task.queue, id: task.id, detail: String(err) }));
    }
    task.finish();
  }

  private async persist(task: QueuedTask): Promise<void> {
    if (!this.options.pending) return;
    const { key, queue, id, payload, runAt, attempt, firstAttemptAt } = task;
    await this.options.pending.save({ key, queue, id, payload, runAt, attempt, firstAttemptAt });
    task.persisted = true;
  }

  /** Waits for a free slot of the queue (FIFO: at most maxConcurrentDispatches running) and for a dispatch token. */
  private async takeSlot(task: QueuedTask): Promise<void> {
    const { queue } = task;
    const { maxDispatchesPerSecond: rate } = QUEUE_CONFIGS[queue].rateLimits;
    const concurrent = this.options.maxConcurrent ?? concurrencyLimit(queue, this.options.tasksOnly ?? false);
    const running = this.running.get(queue) ?? 0;
    if (running < concurrent) this.running.set(queue, running + 1);
    else {
      await new Promise<void>((start) => {
        const waiting = this.waiting.get(queue) ?? [];
        waiting.push({ task, start });
        this.waiting.set(queue, waiting);
      });
    }
    // A token is reserved at once (the balance may go below zero: later dispatches wait their turn).
    const now = Date.now();
    const bucket = this.tokens.get(queue) ?? { tokens: rate, at: now };
    const balance = Math.min(rate, bucket.tokens + ((now - bucket.at) * rate) / 1000) - 1;
    this.tokens.set(queue, { tokens: balance, at: now });
    if (balance < 0) await new Promise((resolve) => setTimeout(resolve, (-balance * 1000) / rate));
  }

  /** Hands the slot to the next waiting task, or frees it. */
  private freeSlot(queue: QueueName): void {
    const next = this.waiting.get(queue)?.shift();
    if (next) next.start();
    else this.running.set(queue, (this.running.get(queue) ?? 1) - 1);
  }
}

/**
 * Tasks of a queue the in-process queue runs at once: the deployed `maxConcurrentDispatches`
 * in a process that runs tasks only, else at most the queue's `besideRequestsMaxConcurrent`
 * (a process serving requests keeps its event loop for them).
 */
export function concurrencyLimit(queue: QueueName, tasksOnly: boolean): number {
  const { rateLimits, besideRequestsMaxConcurrent } = QUEUE_CONFIGS[queue];
  if (tasksOnly || besideRequestsMaxConcurrent === undefined) return rateLimits.maxConcurrentDispatches;
  return Math.min(rateLimits.maxConcurrentDispatches, besideRequestsMaxConcurrent);
}
