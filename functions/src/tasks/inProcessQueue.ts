import * as logger from 'firebase-functions/logger';
import type { EnqueueOptions, EnqueueResult, QueueName, TaskQueue } from './queue';
import { policyBackoffSeconds, RETRY_POLICIES } from './queue';
import { outsideRequest } from '../store/roundTrips';

export type TaskRunner = (queue: QueueName, payload: Record<string, unknown>) => Promise<void>;

export interface InProcessOptions {
  /** Backoff before attempt n (1-based), every queue. Default: each queue's RETRY_POLICIES entry. Tests pass 0 to retry at once. */
  backoffMs?: (attempt: number) => number;
  /** Every queue. Default: each queue's RETRY_POLICIES entry (and its `maxRetrySeconds`, measured from the first attempt). */
  maxAttempts?: number;
  /**
   * Tasks of one queue running at once, every queue; the rest wait their turn in order (Cloud
   * Tasks' maxConcurrentDispatches). Keeps a burst of background work from crowding out
   * requests on the one local store. Default: LOCAL_QUEUE_CONCURRENCY, else LOCAL_TASK_CONCURRENCY.
   */
  maxConcurrent?: number;
}

/** Default of `maxConcurrent`: room for background work without starving the request path. */
export const LOCAL_TASK_CONCURRENCY = 2;

/**
 * Queues whose tasks mostly wait on someone else's server: a webhook delivery holds its slot
 * while the receiver answers (up to 10 s), so two slow receivers would stall every other
 * delivery at 2. Ten at once still leaves the one local store room for requests.
 */
const LOCAL_QUEUE_CONCURRENCY: Partial<Record<QueueName, number>> = { webhookDelivery: 10 };

/**
 * Local stand-in for Cloud Tasks with the same semantics: de-duplication by task id (for the
 * life of the process), the queue's retry policy (attempts, backoff, time limit), a throw means retry.
 * `drain()` waits until every queued task has finished, for tests and graceful shutdown.
 */
export class InProcessTaskQueue implements TaskQueue {
  private readonly seen = new Set<string>();
  private readonly pending = new Set<Promise<void>>();
  private runner: TaskRunner | null = null;
  private readonly backoffMs: ((attempt: number) => number) | null;
  private readonly maxAttempts: number | null;
  private readonly maxConcurrent: number | null;
  private readonly running = new Map<QueueName, number>();
  private readonly waiting = new Map<QueueName, (() => void)[]>();

  constructor(options: InProcessOptions = {}) {
    this.backoffMs = options.backoffMs ?? null;
    this.maxAttempts = options.maxAttempts ?? null;
    this.maxConcurrent = options.maxConcurrent ?? null;
  }

  /** Connects the handlers (done once the dependencies they need exist). */
  attach(runner: TaskRunner): void {
    this.runner = runner;
  }

  async enqueue(queue: QueueName, payload: Record<string, unknown>, options: EnqueueOptions): Promise<EnqueueResult> {
    const key = `${queue}/${options.id}`;
    if (this.seen.has(key)) return 'duplicate';
    this.seen.add(key);
    // A task is its own unit of work (as a Cloud Task is): never part of the enqueuing request's.
    const task = outsideRequest(() => this.run(queue, payload, options)).finally(() => this.pending.delete(task));
    this.pending.add(task);
    return 'enqueued';
  }

  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private async run(queue: QueueName, payload: Record<string, unknown>, options: EnqueueOptions): Promise<void> {
    if (options.scheduleDelaySeconds) await sleep(options.scheduleDelaySeconds * 1000);
    else await Promise.resolve(); // never run inside the enqueuing request's own tick
    const policy = RETRY_POLICIES[queue];
    const maxAttempts = this.maxAttempts ?? policy.maxAttempts;
    const backoffMs = this.backoffMs ?? ((attempt: number) => policyBackoffSeconds(policy, attempt) * 1000);
    const giveUpAt = policy.maxRetrySeconds === undefined ? Infinity : Date.now() + policy.maxRetrySeconds * 1000;
    for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
      if (attempt > 1) {
        const wait = backoffMs(attempt);
        if (Date.now() + wait > giveUpAt) break;
        await sleep(wait);
      }
      await this.takeSlot(queue);
      try {
        if (!this.runner) throw new Error('no task handlers attached');
        await this.runner(queue, payload);
        return;
      } catch (err) {
        logger.warn('task attempt failed', { queue, id: options.id, attempt, detail: err instanceof Error ? err.message : String(err) });
      } finally {
        this.freeSlot(queue);
      }
    }
    logger.error('task gave up after max attempts', { queue, id: options.id });
  }

  /** Waits for a free slot of the queue (FIFO); a backoff sleep holds none. */
  private takeSlot(queue: QueueName): Promise<void> {
    const running = this.running.get(queue) ?? 0;
    if (running < (this.maxConcurrent ?? LOCAL_QUEUE_CONCURRENCY[queue] ?? LOCAL_TASK_CONCURRENCY)) {
      this.running.set(queue, running + 1);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const waiting = this.waiting.get(queue) ?? [];
      waiting.push(resolve);
      this.waiting.set(queue, waiting);
    });
  }

  /** Hands the slot to the next waiting task, or frees it. */
  private freeSlot(queue: QueueName): void {
    const next = this.waiting.get(queue)?.shift();
    if (next) next();
    else this.running.set(queue, (this.running.get(queue) ?? 1) - 1);
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
