import * as logger from 'firebase-functions/logger';
import type { EnqueueOptions, EnqueueResult, QueueName, TaskQueue } from './queue';
import { RETRY_POLICY } from './queue';

export type TaskRunner = (queue: QueueName, payload: Record<string, unknown>) => Promise<void>;

export interface InProcessOptions {
  /** Backoff before attempt n (1-based). Tests pass 0 to retry at once. */
  backoffMs?: (attempt: number) => number;
  maxAttempts?: number;
}

/**
 * Local stand-in for Cloud Tasks with the same semantics: de-duplication by task id (for the
 * life of the process), at most `maxAttempts` attempts with backoff, a throw means retry.
 * `drain()` waits until every queued task has finished, for tests and graceful shutdown.
 */
export class InProcessTaskQueue implements TaskQueue {
  private readonly seen = new Set<string>();
  private readonly pending = new Set<Promise<void>>();
  private runner: TaskRunner | null = null;
  private readonly backoffMs: (attempt: number) => number;
  private readonly maxAttempts: number;

  constructor(options: InProcessOptions = {}) {
    this.backoffMs =
      options.backoffMs ?? ((attempt) => Math.min(RETRY_POLICY.maxBackoffSeconds, RETRY_POLICY.minBackoffSeconds * 2 ** (attempt - 2)) * 1000);
    this.maxAttempts = options.maxAttempts ?? RETRY_POLICY.maxAttempts;
  }

  /** Connects the handlers (done once the dependencies they need exist). */
  attach(runner: TaskRunner): void {
    this.runner = runner;
  }

  async enqueue(queue: QueueName, payload: Record<string, unknown>, options: EnqueueOptions): Promise<EnqueueResult> {
    const key = `${queue}/${options.id}`;
    if (this.seen.has(key)) return 'duplicate';
    this.seen.add(key);
    const task = this.run(queue, payload, options).finally(() => this.pending.delete(task));
    this.pending.add(task);
    return 'enqueued';
  }

  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private async run(queue: QueueName, payload: Record<string, unknown>, options: EnqueueOptions): Promise<void> {
    if (options.scheduleDelaySeconds) await sleep(options.scheduleDelaySeconds * 1000);
    else await Promise.resolve(); // never run inside the enqueuing request's own tick
    for (let attempt = 1; attempt <= this.maxAttempts; attempt += 1) {
      if (attempt > 1) await sleep(this.backoffMs(attempt));
      try {
        if (!this.runner) throw new Error('no task handlers attached');
        await this.runner(queue, payload);
        return;
      } catch (err) {
        logger.warn('task attempt failed', { queue, id: options.id, attempt, detail: err instanceof Error ? err.message : String(err) });
      }
    }
    logger.error('task gave up after max attempts', { queue, id: options.id });
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
