import { EmulatorResetError } from './emulator';

/**
 * Clears the store between scenarios so that the bench always reaches its report. First the
 * background work the scenario queued is drained (a task mid-transaction holds locks the clear
 * would wait on); then a clear the emulator still refuses with `409` (a transaction of a request
 * the load client already gave up on can hold its locks until the emulator's lock timeout) is
 * retried with growing pauses, a bounded number of times.
 */
export interface ResetOptions {
  clear: () => Promise<void>;
  drain: () => Promise<unknown>;
  /** Attempts of the clear in all (default 6). */
  attempts?: number;
  /** Pause before retry n (1-based; default 0.5 s doubling, at most 8 s: about 23 s in all). */
  pauseMs?: (retry: number) => number;
  onRetry?: (retry: number, error: EmulatorResetError) => void;
}

export async function resetStore(options: ResetOptions): Promise<void> {
  const attempts = options.attempts ?? 6;
  const pauseMs = options.pauseMs ?? ((retry: number) => Math.min(8000, 500 * 2 ** (retry - 1)));
  await options.drain();
  for (let attempt = 1; ; attempt += 1) {
    try {
      await options.clear();
      return;
    } catch (err) {
      if (!(err instanceof EmulatorResetError) || err.status !== 409 || attempt >= attempts) throw err;
      options.onRetry?.(attempt, err);
      await new Promise((resolve) => setTimeout(resolve, pauseMs(attempt)));
      await options.drain(); // work a retrying task started meanwhile
    }
  }
}
