import { createServer, type RequestListener } from 'node:http';
import { startFloorServer } from './floor';
import type { RailWiring, ServerReady, ServerReply, ServerRequest } from './serverProtocol';

/**
 * The server under measurement, in its own process so that `process.cpuUsage()` is the
 * server's alone (the load clients and the store floor run in the bench's process): every
 * endpoint group as the local runner serves it, a second instance whose limiter grants
 * everything (for `unmetered` scenarios), and the bare HTTP floor. The parent asks it over IPC
 * to drain its background work, report its CPU time, or point the rails at local fakes.
 */
async function main(): Promise<void> {
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) console[level] = () => undefined;
  const { createDeps } = await import('#functions/app/deps');
  const { ALL_ROUTES } = await import('#functions/app/groups');
  const { createServiceApp } = await import('#functions/app/serviceApp');
  const { InProcessTaskQueue } = await import('#functions/tasks/inProcessQueue');

  // As the local runner (`npm start`) serves: background tasks run beside the requests, at most
  // two per queue at once (Cloud Tasks' maxConcurrentDispatches).
  const queues = [new InProcessTaskQueue(), new InProcessTaskQueue()];
  const deps = createDeps({ tasks: queues[0] });
  const unmeteredDeps = createDeps({ tasks: queues[1], bucketStore: { lease: async (_id, _spec, want) => want } });
  const listen = async (listener: RequestListener): Promise<string> => {
    const server = createServer(listener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  };
  const baseUrl = await listen(createServiceApp(ALL_ROUTES, deps));
  const unmeteredUrl = await listen(createServiceApp(ALL_ROUTES, unmeteredDeps));
  const floor = await startFloorServer(deps.db);

  const wireRails = (wiring: RailWiring) => {
    Object.assign(process.env, wiring.secrets);
    for (const { rails } of [deps, unmeteredDeps]) {
      rails.apple.onlineChecks = false;
      rails.stripe.api = { host: '127.0.0.1', port: wiring.fakesPort, protocol: 'http' };
      rails.google.pushJwksUrl = wiring.jwksUrl;
      rails.google.playRootUrl = `${wiring.fakesUrl}/`;
      rails.google.playAuth = async () => 'bench-api-key';
    }
  };

  process.on('message', (message: ServerRequest) => {
    const reply = (answer: Omit<ServerReply, 'id'>) => process.send!({ id: message.id, ...answer } satisfies ServerReply);
    void (async () => {
      try {
        if (message.type === 'drain') {
          const started = Date.now();
          await Promise.all(queues.map((queue) => queue.drain()));
          reply({ seconds: (Date.now() - started) / 1000 });
        } else if (message.type === 'cpu') {
          const usage = process.cpuUsage();
          reply({ cpuMicros: usage.user + usage.system });
        } else if (message.type === 'setSecrets') {
          Object.assign(process.env, message.secrets);
          reply({});
        } else {
          wireRails(message.wiring);
          reply({});
        }
      } catch (err) {
        reply({ error: err instanceof Error ? err.message : String(err) });
      }
    })();
  });
  // Stopped by the bench (SIGTERM): exit normally, so that `--cpu-prof` writes its profile.
  process.once('SIGTERM', () => process.exit(0));
  process.send!({ type: 'ready', baseUrl, unmeteredUrl, floorUrl: floor.url } satisfies ServerReady);
}

main().catch((err) => {
  process.stderr.write(`bench server: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
