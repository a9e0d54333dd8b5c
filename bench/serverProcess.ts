import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { RailWiring, ServerReady, ServerReply, ServerRequest, TaskShape, TaskWorkerReady } from './serverProtocol';

type Ask = ServerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/** The bench's handle on the processes it measures: the server (bench/server.ts) and its task worker (bench/taskWorker.ts). */
export interface BenchServer {
  baseUrl: string;
  unmeteredUrl: string;
  floorUrl: string;
  /** Waits for the background work queued so far (the server's enqueues in flight, then the worker's tasks); seconds taken. */
  drain(): Promise<number>;
  /** The server process's CPU time so far (user + system), in milliseconds. */
  cpuMs(): Promise<number>;
  /** The task worker's CPU time so far (user + system), in milliseconds. */
  workerCpuMs(): Promise<number>;
  /** Tasks the worker has been given so far, per queue (each landed events batch is one `identityResolution` task). */
  tasksEnqueued(): Promise<Record<string, number>>;
  /** Holds the tasks given from now on in the worker without running them (true), or runs them all (false): a diagnostic. */
  holdBackground(hold: boolean): Promise<void>;
  wireRails(wiring: RailWiring): Promise<void>;
  /** Starts a CPU profile of the server and of the task worker (BENCH_SCENARIO_CPU_PROF). */
  profileStart(): Promise<void>;
  /** Where the server's enqueues go from now on (a diagnostic; `deployed` until asked). */
  taskShape(shape: TaskShape): Promise<void>;
  /** Writes the profile started last of one process as `dir/<label>.<server|worker>.cpuprofile`. */
  profileStop(which: 'server' | 'worker', dir: string, label: string): Promise<void>;
  /** Puts secret values where the server's and the worker's local secret stores read them (their environment). */
  setSecrets(secrets: Record<string, string>): Promise<void>;
  stop(): void;
}

interface Child<Ready> {
  ready: Ready;
  ask(request: Ask): Promise<ServerReply>;
  stop(): void;
}

/**
 * Starts the task worker, then the server pointed at it, with the bench's environment
 * (emulator host, settings). BENCH_SERVER_CPU_PROF=dir: both processes write a V8 CPU profile
 * there when they stop (`node --cpu-prof`; open it in Chrome DevTools), for the profiles in
 * docs/benchmarks.md.
 */
export async function startBenchServer(): Promise<BenchServer> {
  const worker = await forkChild<TaskWorkerReady>('taskWorker.js', process.env);
  let server: Child<ServerReady>;
  try {
    server = await forkChild<ServerReady>('server.js', { ...process.env, CLOUD_TASKS_EMULATOR_HOST: worker.ready.tasksHost });
  } catch (err) {
    worker.stop();
    throw err;
  }
  const { baseUrl, unmeteredUrl, floorUrl } = server.ready;
  const both = async (request: Ask) => void (await Promise.all([server.ask(request), worker.ask(request)]));
  return {
    baseUrl,
    unmeteredUrl,
    floorUrl,
    drain: async () => ((await server.ask({ type: 'drain' })).seconds ?? 0) + ((await worker.ask({ type: 'drain' })).seconds ?? 0),
    cpuMs: async () => ((await server.ask({ type: 'cpu' })).cpuMicros ?? 0) / 1000,
    workerCpuMs: async () => ((await worker.ask({ type: 'cpu' })).cpuMicros ?? 0) / 1000,
    tasksEnqueued: async () => (await worker.ask({ type: 'tasks' })).tasks ?? {},
    holdBackground: async (hold) => void (await worker.ask({ type: 'holdDispatch', hold })),
    wireRails: (wiring) => both({ type: 'wireRails', wiring }),
    profileStart: () => both({ type: 'profileStart' }),
    taskShape: async (shape) => void (await server.ask({ type: 'taskShape', shape })),
    profileStop: async (which, dir, label) => void (await (which === 'server' ? server : worker).ask({ type: 'profileStop', dir, label })),
    setSecrets: (secrets) => both({ type: 'setSecrets', secrets }),
    stop: () => {
      server.stop();
      worker.stop();
    },
  };
}

async function forkChild<Ready>(file: string, env: NodeJS.ProcessEnv): Promise<Child<Ready>> {
  const profileDir = process.env.BENCH_SERVER_CPU_PROF;
  const execArgv = profileDir ? [...process.execArgv, '--cpu-prof', `--cpu-prof-dir=${profileDir}`] : process.execArgv;
  const child: ChildProcess = fork(join(__dirname, file), [], { env, execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map<number, (reply: ServerReply) => void>();
  let nextId = 0;
  const ready = new Promise<Ready>((resolve, reject) => {
    child.on('message', (message: (Ready & { type: 'ready' }) | ServerReply) => {
      if ('type' in message) resolve(message);
      else {
        pending.get(message.id)?.(message);
        pending.delete(message.id);
      }
    });
    child.once('exit', (code) => reject(new Error(`bench ${file} exited (${code})`)));
  });
  return {
    ready: await ready,
    ask: (request) =>
      new Promise((resolve, reject) => {
        const id = (nextId += 1);
        pending.set(id, (reply) => (reply.error ? reject(new Error(reply.error)) : resolve(reply)));
        child.send({ ...request, id });
      }),
    stop: () => void child.kill(),
  };
}
