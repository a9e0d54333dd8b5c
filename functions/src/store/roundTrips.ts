import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Store round trips of one request, counted at the store edge (EnvScope, counted transactions,
 * store/counted.ts) into the counter of the request running in the current async context. The
 * pipeline opens that context; outside a request (tasks, the CLI) nothing is counted. Reported
 * by the benchmark (`X-Tessera-Round-Trips`), never used for logic.
 */
export class RoundTripCounter {
  count = 0;
  /** Documents the request read (getAll and query results), for the reports' benchmark. */
  documents = 0;
}

const current = new AsyncLocalStorage<RoundTripCounter>();

/** Runs `fn` (a request) with `counter` as the current request's counter. */
export function withRoundTripCounter<T>(counter: RoundTripCounter, fn: () => T): T {
  return current.run(counter, fn);
}

/**
 * Runs `fn` outside any request's counter: background work started by a request (an in-process
 * task) is its own unit of work, as a Cloud Task is, and never counts into that request.
 */
export function outsideRequest<T>(fn: () => T): T {
  return current.exit(fn);
}

/** Adds `n` round trips to the current request's counter (store edge only). */
export function countRoundTrips(n = 1): void {
  const counter = current.getStore();
  if (counter) counter.count += n;
}

/** Adds `n` documents read to the current request's counter (store edge only). */
export function countDocumentsRead(n: number): void {
  const counter = current.getStore();
  if (counter) counter.documents += n;
}
