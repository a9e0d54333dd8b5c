import type { RootDeps } from '#functions/app/deps';
import type { DemoProject } from '#functions/local/seed';
import type { PacedOperation } from './paced';
import type { StoreCallsFloor } from './sameStoreCalls';
import type { BenchServer } from './serverProcess';

/**
 * What a benchmark scenario may use to prepare its request: a seeded project, the store (the
 * bench's own dependencies, for seeding), and the server process under measurement.
 */
export interface BenchContext {
  deps: RootDeps;
  server: BenchServer;
  project: DemoProject;
  baseUrl: string;
}

export interface BenchRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** The JSON text of each request, for requests that must differ every time (overrides `body`). */
  nextBody?: () => string;
  /** The path and JSON text of each request, for closed-loop loads that mix routes (overrides `path` and `body`). */
  nextRequest?: () => { path: string; body: string };
  /** Extra headers computed from each request's body (a webhook signature over it). */
  headersFor?: (body: string) => Record<string, string>;
}

/**
 * One line of the benchmark report. `prepare` runs once before the load (seed customers,
 * grants…) and returns the request that autocannon repeats.
 */
export interface Scenario {
  name: string;
  /** The HTTP request the load repeats (prepared once, after seeding). */
  prepare?(ctx: BenchContext): Promise<BenchRequest>;
  /** Instead of a request: an operation on the store itself (a floor), with a `paced` load. */
  storeOperation?(ctx: BenchContext): PacedOperation | Promise<PacedOperation>;
  /**
   * A diagnostic: the task worker holds the tasks the load enqueues and runs them after it, so
   * that the requests' latency is measured without their background's store writes beside them.
   */
  backgroundDeferred?: boolean;
  /** Runs at least this long whatever BENCH_SECONDS says (a target stated over a duration). */
  minSeconds?: number;
  /** Concurrent connections (default 10). */
  connections?: number;
  /**
   * An open load (see paced.ts): `clients` each sending `perClientPerSecond` requests on a fixed
   * schedule. Default: autocannon's closed loop, as fast as the connections go (saturation).
   */
  paced?: { clients: number; perClientPerSecond: number; aligned?: boolean };
  /** Printed under the table: what the figure covers. */
  note?: string;
  /**
   * Pairs a server scenario with the store-only floor doing the same store work under the same
   * load (same name on both): the report shows the server's added latency over that floor. A
   * `backgroundDeferred` server scenario shares its floor, under its own row.
   */
  floorPair?: string;
  /**
   * Serve this scenario from an instance whose rate limiter never throttles, to measure the
   * landing path itself beyond what the spec's buckets let through.
   */
  unmetered?: boolean;
  /**
   * The same store calls as this scenario's warm request (bench/sameStoreCalls.ts), driven from
   * the bench's process right after it, on the same data, under the same closed loop
   * (`connections`): its row follows the scenario's, and `target.p50VsStoreCalls` compares them.
   */
  storeCallsFloor?(ctx: BenchContext, request: BenchRequest): Promise<StoreCallsFloor>;
  /** Served by the bare floor server (bench/floor.ts: `/store/…` does a route's store work and nothing else). */
  servedByFloor?: boolean;
  /**
   * Pairs a route's closed-loop scenario with the bare floor server doing the same store work
   * under the same load (same name on both): the report shows the route's CPU per request over
   * that floor's.
   */
  cpuPair?: string;
  /**
   * An issue's target for this scenario, checked in the report's "Targets" table (met / not met
   * beside the figure): store round trips of the warm probe (at most), requests per second (at
   * least), p50 ms (at most), background work left after the load (seconds, at most), and over
   * its pairs: CPU per request over its `cpuPair` floor's (ratio, at most), p50 and p99 over its
   * `floorPair` store floor's (ms added, at most).
   */
  target?: ScenarioTarget;
}

export interface ScenarioTarget {
  /** Where the target comes from (e.g. `issue 23`). */
  source: string;
  roundTrips?: number;
  requestsPerSecond?: number;
  p50Ms?: number;
  backgroundSeconds?: number;
  cpuVsFloor?: number;
  addedP50Ms?: number;
  addedP99Ms?: number;
  /** p50 over the p50 of the same store calls from the bench's process (`storeCallsFloor`), at most. */
  p50VsStoreCalls?: number;
}
