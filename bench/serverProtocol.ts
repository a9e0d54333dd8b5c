/** Messages between the bench (parent) and the processes it measures: the server (bench/server.ts) and the task worker (bench/taskWorker.ts). */

/** Where the rails' network edges point for the rail scenarios (local fakes). */
export interface RailWiring {
  fakesUrl: string;
  fakesPort: number;
  jwksUrl: string;
  /** Environment the local secret store reads references from. */
  secrets: Record<string, string>;
}

/**
 * Where the server's enqueues go (BENCH_TASK_SHAPES, a diagnostic): `deployed`, the Cloud Tasks
 * adapter into the task worker (the default); `in-server`, the in-process queue of `npm start`
 * (the tasks on the requests' event loop, the bench's shape before branch eventsbg); `none`,
 * accepted and dropped (the request path without its enqueue; no background at all).
 */
export type TaskShape = 'deployed' | 'in-server' | 'none';

export type ServerRequest =
  | { id: number; type: 'drain' }
  | { id: number; type: 'cpu' }
  /** The task worker only: tasks the server has enqueued so far, per queue. */
  | { id: number; type: 'tasks' }
  /** The task worker only: keep the tasks given from now on without running them (`hold`), or run them all (a diagnostic). */
  | { id: number; type: 'holdDispatch'; hold: boolean }
  | { id: number; type: 'wireRails'; wiring: RailWiring }
  /** Secret values the process's local secret store reads from its environment (webhook signing secrets). */
  | { id: number; type: 'setSecrets'; secrets: Record<string, string> }
  /** BENCH_SCENARIO_CPU_PROF: start a CPU profile of this process, or write it as `dir/<label>.<process>.cpuprofile` (bench/scenarioProfile.ts). */
  | { id: number; type: 'profileStart' }
  /** The server only: where its enqueues go from now on. */
  | { id: number; type: 'taskShape'; shape: TaskShape }
  | { id: number; type: 'profileStop'; dir: string; label: string };

export type ServerReply = { id: number; seconds?: number; cpuMicros?: number; tasks?: Record<string, number>; error?: string };

export interface ServerReady {
  type: 'ready';
  baseUrl: string;
  unmeteredUrl: string;
  floorUrl: string;
}

export interface TaskWorkerReady {
  type: 'ready';
  /** Where the server's Cloud Tasks adapter creates tasks (its `CLOUD_TASKS_EMULATOR_HOST`). */
  tasksHost: string;
}
