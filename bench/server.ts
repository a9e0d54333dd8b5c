import { createServer, type RequestListener } from 'node:http';
import { startFloorServer } from './floor';
import type { EnqueueOptions, EnqueueResult, QueueName, TaskQueue } from '#functions/tasks/queue';
import { wireRails } from './railWiring';
import { answerParent, timedDrain } from './parentChannel';
import type { ServerReady, TaskShape } from './serverProtocol';

/** The server's queue adapter, remembering the enqueues not yet answered (a drain waits for them before the worker's). */
class EnqueuesInFlight implements TaskQueue {
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly queue: TaskQueue) {}

  enqueue(queue: QueueName, payload: Record<string, unknown>, options: EnqueueOptions): Promise<EnqueueResult> {
    const sent = this.queue.enqueue(queue, payload, options);
    this.inFlight.add(sent);
    void sent.finally(() => this.inFlight.delete(sent)).catch(() => undefined);
    return sent;
  }

  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }
}

/**
 * The server under measurement, in its own process so that `process.cpuUsage()` is the
 * server's alone (the load clients and the store floor run in the bench's process): every
 * endpoint group as the local runner serves it, a second instance whose limiter grants
 * everything (for `unmetered` scenarios), and the bare HTTP floor. Background work is not
 * here: as deployed, the requests enqueue their tasks through the production adapter
 * (CloudTasksQueue, over HTTP) and the tasks run in another process (bench/taskWorker.ts,
 * whose address the parent gives as `CLOUD_TASKS_EMULATOR_HOST`). The parent asks it over IPC
 * to wait for its enqueues in flight, report its CPU time, or point the rails at local fakes.
 */
async function main(): Promise<void> {
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) console[level] = () => undefined;
  if (!process.env.CLOUD_TASKS_EMULATOR_HOST) throw new Error('CLOUD_TASKS_EMULATOR_HOST is not set: the bench starts the task worker first and points the server at it');
  const { createDeps } = await import('#functions/app/deps');
  const { ALL_ROUTES } = await import('#functions/app/groups');
  const { createServiceApp } = await import('#functions/app/serviceApp');
  const { CloudTasksQueue } = await import('#functions/tasks/cloudTasksQueue');
  const { InProcessTaskQueue } = await import('#functions/tasks/inProcessQueue');

  // One queue adapter for both instances (deployed, one Cloud Tasks queue per name); the region
  // only names the queue's path, which the worker's stand-in accepts whatever it is.
  const deployed = new CloudTasksQueue('us-central1');
  // The other shapes of BENCH_TASK_SHAPES (serverProtocol.ts TaskShape), a diagnostic only.
  const inServer = new InProcessTaskQueue();
  const dropped: TaskQueue = { enqueue: async () => 'enqueued' };
  let shape: TaskShape = 'deployed';
  const tasks = new EnqueuesInFlight({ enqueue: (queue, payload, options) => (shape === 'deployed' ? deployed : shape === 'in-server' ? inServer : dropped).enqueue(queue, payload, options) });
  const deps = createDeps({ tasks });
  // As createDeps attaches the service's handler table to an in-process queue it is given.
  inServer.attach(async (queue, payload) => (await import('#functions/app/taskHandlers')).runTask(queue, payload, deps));
  const unmeteredDeps = createDeps({ tasks, bucketStore: { lease: async (_id, _spec, want) => want } });
  const listen = async (listener: RequestListener): Promise<string> => {
    const server = createServer(listener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  };
  const baseUrl = await listen(createServiceApp(ALL_ROUTES, deps));
  const unmeteredUrl = await listen(createServiceApp(ALL_ROUTES, unmeteredDeps));
  const floor = await startFloorServer(deps.db);

  answerParent('server', async (request) => {
    switch (request.type) {
      case 'drain':
        // The tasks run in the worker, which the parent drains next; here the enqueues still on their way (and the in-server shape's tasks).
        return timedDrain(async () => {
          await tasks.settled();
          await inServer.drain();
        });
      case 'tasks':
      case 'holdDispatch':
        return { error: 'the server runs no tasks: ask the task worker' };
      case 'wireRails':
        for (const each of [deps, unmeteredDeps]) wireRails(each, request.wiring);
        return {};
      case 'taskShape':
        shape = request.shape;
        return {};
    }
  });
  // Stopped by the bench (SIGTERM): exit normally, so that `--cpu-prof` writes its profile.
  process.once('SIGTERM', () => process.exit(0));
  process.send!({ type: 'ready', baseUrl, unmeteredUrl, floorUrl: floor.url } satisfies ServerReady);
}

main().catch((err) => {
  process.stderr.write(`bench server: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
