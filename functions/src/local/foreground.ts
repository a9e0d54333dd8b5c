import type { RequestListener } from 'node:http';
import { InProcessTaskQueue } from '../tasks/inProcessQueue';

/**
 * Requests in flight on the local process. Deployed, background tasks run on their own
 * instances; locally they share one process and one emulator with the requests, so the
 * in-process queue waits for a quiet moment (or at most `maxWaitMs`) before each task, and a
 * burst of requests is answered before the work it queued competes with it.
 */
export class ForegroundActivity {
  private active = 0;
  private readonly waiters = new Set<() => void>();

  /** The server's request listener, counting each request until its response is closed. */
  tracking(listener: RequestListener): RequestListener {
    return (req, res) => {
      this.active += 1;
      res.once('close', () => {
        this.active -= 1;
        if (this.active === 0) for (const wake of [...this.waiters]) wake();
      });
      listener(req, res);
    };
  }

  /** Resolves once no request is in flight, or after `maxWaitMs` at the latest (no starvation). */
  quiet(maxWaitMs: number): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, maxWaitMs);
      this.waiters.add(wake);
    });
  }
}

/** Longest a local background task waits for the requests in flight to finish. */
export const BACKGROUND_MAX_WAIT_MS = 250;

/** The in-process queue of the local stack (`npm start`, the bench): each task first waits for a quiet moment. */
export const localTaskQueue = (foreground: ForegroundActivity): InProcessTaskQueue =>
  new InProcessTaskQueue({ beforeAttempt: () => foreground.quiet(BACKGROUND_MAX_WAIT_MS) });
