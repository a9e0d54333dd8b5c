import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { RailWiring, ServerReady, ServerReply } from './serverProtocol';

type Ask = { type: 'drain' } | { type: 'cpu' } | { type: 'wireRails'; wiring: RailWiring } | { type: 'setSecrets'; secrets: Record<string, string> };

/** The bench's handle on the server process (bench/server.ts). */
export interface BenchServer {
  baseUrl: string;
  unmeteredUrl: string;
  floorUrl: string;
  /** Waits for the background work queued so far; seconds taken. */
  drain(): Promise<number>;
  /** The server process's CPU time so far (user + system), in milliseconds. */
  cpuMs(): Promise<number>;
  wireRails(wiring: RailWiring): Promise<void>;
  /** Puts secret values where the server's local secret store reads them (its environment). */
  setSecrets(secrets: Record<string, string>): Promise<void>;
  stop(): void;
}

/**
 * Starts the server process with the bench's environment (emulator host, settings).
 * BENCH_SERVER_CPU_PROF=dir: the server process writes a V8 CPU profile there when it stops
 * (`node --cpu-prof`; open it in Chrome DevTools), for the profiles in docs/benchmarks.md.
 */
export async function startBenchServer(): Promise<BenchServer> {
  const profileDir = process.env.BENCH_SERVER_CPU_PROF;
  const execArgv = profileDir ? [...process.execArgv, '--cpu-prof', `--cpu-prof-dir=${profileDir}`] : process.execArgv;
  const child: ChildProcess = fork(join(__dirname, 'server.js'), [], { env: process.env, execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map<number, (reply: ServerReply) => void>();
  let nextId = 0;
  const ready = new Promise<ServerReady>((resolve, reject) => {
    child.on('message', (message: ServerReady | ServerReply) => {
      if ('type' in message) resolve(message);
      else {
        pending.get(message.id)?.(message);
        pending.delete(message.id);
      }
    });
    child.once('exit', (code) => reject(new Error(`bench server exited (${code})`)));
  });
  const ask = (request: Ask): Promise<ServerReply> =>
    new Promise((resolve, reject) => {
      const id = (nextId += 1);
      pending.set(id, (reply) => (reply.error ? reject(new Error(reply.error)) : resolve(reply)));
      child.send({ ...request, id });
    });
  const urls = await ready;
  return {
    ...urls,
    drain: async () => (await ask({ type: 'drain' })).seconds ?? 0,
    cpuMs: async () => ((await ask({ type: 'cpu' })).cpuMicros ?? 0) / 1000,
    wireRails: async (wiring) => void (await ask({ type: 'wireRails', wiring })),
    setSecrets: async (secrets) => void (await ask({ type: 'setSecrets', secrets })),
    stop: () => void child.kill(),
  };
}
