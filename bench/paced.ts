import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { LoadResult } from './load';
import type { BenchRequest } from './scenario';

export interface PacedLoad {
  /** Independent clients, each with its own connection. */
  clients: number;
  /** Requests each client sends per second, on a fixed schedule. */
  perClientPerSecond: number;
  seconds: number;
  /** Every client sends at the same instants (a burst of `clients` requests each interval). */
  aligned?: boolean;
}

/** One request of a paced client: resolves to whether it succeeded. */
export type PacedOperation = () => Promise<boolean>;

/**
 * An open load: each client sends on its own fixed schedule, the way SDKs flush their queues on
 * a timer. The clients' schedules are evenly staggered, or `aligned` to the same instants (every
 * client's batch arrives at once: all of them in flight together). Latency is measured from each
 * request's scheduled time, so a request that had to wait for its client's previous one counts
 * the wait (no coordinated omission).
 */
export async function drivePacedOperation(operation: PacedOperation, load: PacedLoad): Promise<LoadResult> {
  const intervalMs = 1000 / load.perClientPerSecond;
  const perClient = Math.max(1, Math.floor(load.seconds * load.perClientPerSecond));
  const latencies: number[] = [];
  let failed = 0;
  let errors = 0;
  const start = performance.now() + 50;

  const client = async (index: number): Promise<void> => {
    const phase = load.aligned ? 0 : (index * intervalMs) / load.clients;
    for (let n = 0; n < perClient; n += 1) {
      const scheduled = start + phase + n * intervalMs;
      const wait = scheduled - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      try {
        if (!(await operation())) failed += 1;
      } catch {
        errors += 1;
      }
      latencies.push(performance.now() - scheduled);
    }
  };
  await Promise.all(Array.from({ length: load.clients }, (_, i) => client(i)));
  return summary(latencies, (performance.now() - start) / 1000, failed, errors);
}

/**
 * A closed loop of an operation, as autocannon drives a route: `connections` loops, each starting
 * its next operation when the previous one ends, for `seconds` (a route's store floor under the
 * route's own load).
 */
export async function driveClosedOperation(operation: PacedOperation, connections: number, seconds: number): Promise<LoadResult> {
  const latencies: number[] = [];
  let failed = 0;
  let errors = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  const loop = async (): Promise<void> => {
    while (performance.now() < end) {
      const began = performance.now();
      try {
        if (!(await operation())) failed += 1;
      } catch {
        errors += 1;
      }
      latencies.push(performance.now() - began);
    }
  };
  await Promise.all(Array.from({ length: connections }, () => loop()));
  return summary(latencies, (performance.now() - start) / 1000, failed, errors);
}

function summary(latencies: number[], elapsedSeconds: number, failed: number, errors: number): LoadResult {
  latencies.sort((a, b) => a - b);
  const percentile = (p: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)]);
  return {
    requestsPerSec: latencies.length / elapsedSeconds,
    p50: percentile(50),
    p99: percentile(99),
    non2xx: failed + errors,
    errors,
    total: latencies.length,
  };
}

/**
 * The paced load against one HTTP request shape, from its own thread, so that the clients' work
 * (building, sending and reading requests) does not share the server's event loop. A request
 * whose bodies or headers are computed per request (functions, which a thread cannot receive)
 * is driven from this thread.
 */
export function drivePaced(baseUrl: string, request: BenchRequest, load: PacedLoad): Promise<LoadResult> {
  if (request.nextBody || request.headersFor) return drivePacedInThread(baseUrl, request, load);
  return new Promise((resolve, reject) => {
    const worker = new Worker(join(__dirname, 'pacedWorker.js'), { workerData: { baseUrl, request, load } });
    worker.once('message', (message: { result?: LoadResult; error?: string }) => {
      if (message.result) resolve(message.result);
      else reject(new Error(message.error));
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

export function drivePacedInThread(baseUrl: string, request: BenchRequest, load: PacedLoad): Promise<LoadResult> {
  const body = request.body !== undefined ? JSON.stringify(request.body) : undefined;
  const headers = { ...(body !== undefined || request.nextBody ? { 'content-type': 'application/json' } : {}), ...request.headers };
  return drivePacedOperation(async () => {
    const text = request.nextBody ? request.nextBody() : body;
    const response = await fetch(`${baseUrl}${request.path}`, { method: request.method, headers: { ...headers, ...(text !== undefined ? request.headersFor?.(text) : {}) }, body: text });
    await response.arrayBuffer();
    return response.status >= 200 && response.status <= 299;
  }, load);
}
