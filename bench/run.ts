import { cpus, totalmem } from 'node:os';
import { createServer, type Server } from 'node:http';
import { LOCAL_GCLOUD_PROJECT } from '#functions/local/paths';
import { startEmulator } from '#functions/local/emulator';
import { startFloorServer } from './floor';
import { drive, roundTripsOf, type LoadResult } from './load';
import { drivePaced, drivePacedOperation } from './paced';
import { resetStore } from '#functions/local/clearStore';

/**
 * `npm run bench`: starts the local stack (emulator + every endpoint group), then drives each
 * scenario with autocannon beside a floor (a bare Node server) measured in the same run, and
 * prints requests/s, p50/p99 latency and the Firestore round trips per request (warm instance).
 * BENCH_SECONDS (default 5) sets the duration of each scenario.
 */
async function main(): Promise<void> {
  // The server's structured request logs would dominate the measurement: mute them; the
  // report is written straight to stdout.
  const report = (text: string) => process.stdout.write(`${text}\n`);
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) console[level] = () => undefined;
  const seconds = Number(process.env.BENCH_SECONDS || 5);
  process.env.GCLOUD_PROJECT ??= LOCAL_GCLOUD_PROJECT;
  process.env.METADATA_SERVER_DETECTION ??= 'none';
  process.env.TESSERA_EXPOSE_ROUND_TRIPS = 'true';
  const emulator = await startEmulator();
  process.env.FIRESTORE_EMULATOR_HOST = emulator.host;
  const servers: Server[] = [];
  try {
    const { createDeps } = await import('#functions/app/deps');
    const { ALL_ROUTES } = await import('#functions/app/groups');
    const { createApiApp } = await import('#functions/http/pipeline');
    const { randomDemoSpec, seedDemo } = await import('#functions/local/seed');
    const { SCENARIOS } = await import('./scenarios');

    const { InProcessTaskQueue } = await import('#functions/tasks/inProcessQueue');
    const serve = async (app: ReturnType<typeof createApiApp>): Promise<string> => {
      const server = createServer(app);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push(server);
      const address = server.address();
      return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    };
    // As the local runner (`npm start`) serves: background tasks run beside the requests, at
    // most two per queue at once (Cloud Tasks' maxConcurrentDispatches), never waiting for them.
    const queues = [new InProcessTaskQueue(), new InProcessTaskQueue()];
    const deps = createDeps({ tasks: queues[0] });
    const baseUrl = await serve(createApiApp(ALL_ROUTES, deps));
    // A second instance whose limiter grants everything, for scenarios marked `unmetered`.
    const unmeteredDeps = createDeps({ tasks: queues[1], bucketStore: { lease: async (_id, _spec, want) => want } });
    const unmeteredUrl = await serve(createApiApp(ALL_ROUTES, unmeteredDeps));
    /** Waits for the background work a scenario left queued (identity resolution, erasures): seconds taken. */
    const settle = async (): Promise<number> => {
      const started = Date.now();
      await Promise.all(queues.map((queue) => queue.drain()));
      return (Date.now() - started) / 1000;
    };
    const floor = await startFloorServer();
    servers.push(floor.server);

    const rows: string[] = [];
    const line = (name: string, r: LoadResult, trips: string, backlogSeconds: number) =>
      `| ${name} | ${Math.round(r.requestsPerSec)} | ${r.p50} | ${r.p99} | ${r.total - r.non2xx}/${r.total} | ${trips} | ${backlogSeconds.toFixed(1)} |`;
    const floorResult = await drive(floor.url, { method: 'GET', path: '/' }, 10, seconds);
    rows.push(line('floor: bare node:http, fixed JSON', floorResult, '0', 0));
    const only = process.env.BENCH_ONLY?.toLowerCase();
    for (const scenario of SCENARIOS.filter((s) => !only || s.name.toLowerCase().includes(only))) {
      // Each scenario starts from an empty store (what earlier scenarios wrote would slow the
      // emulator) and gets its own project, so rate limits and data never interact.
      await resetStore({
        clear: () => emulator.clear(process.env.GCLOUD_PROJECT!),
        drain: settle,
        onRetry: (retry, err) => process.stderr.write(`store reset before ${scenario.name}: retry ${retry} after ${err.message}\n`),
      });
      const project = await seedDemo(deps.db, randomDemoSpec(), deps.clock.now());
      const url = scenario.unmetered ? unmeteredUrl : baseUrl;
      if (scenario.storeOperation) {
        const result = await drivePacedOperation(scenario.storeOperation({ deps, project, baseUrl: url }), { clients: 10, perClientPerSecond: 1, ...scenario.paced, seconds });
        rows.push(line(scenario.name, result, '2 (no server)', await settle()));
        process.stderr.write(`measured: ${scenario.name}\n`);
        continue;
      }
      const request = await scenario.prepare!({ deps, project, baseUrl: url });
      await roundTripsOf(url, request); // warm the instance (key cache, connections)
      const probe = await roundTripsOf(url, request);
      await settle(); // the warm-up's own background work is not the scenario's
      const result = scenario.paced
        ? await drivePaced(url, request, { ...scenario.paced, seconds })
        : await drive(url, request, scenario.connections ?? 10, seconds);
      const backlog = await settle();
      rows.push(line(scenario.name, result, probe.roundTrips === null ? '?' : `${probe.roundTrips} (status ${probe.status})`, backlog));
      process.stderr.write(`measured: ${scenario.name}\n`);
    }
    const header = [
      `Tessera benchmark, ${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${seconds} s per scenario, local stack on the Firestore emulator`,
      '',
      '| scenario | req/s | p50 ms | p99 ms | 2xx/total | store round trips (warm) | background work left after the load (s) |',
      '|---|---|---|---|---|---|---|',
    ];
    const notes = SCENARIOS.filter((s) => s.note && (!only || s.name.toLowerCase().includes(only))).map((s) => `- ${s.name}: ${s.note}`);
    report([...header, ...rows, ...(notes.length > 0 ? ['', 'Notes:', ...notes] : [])].join('\n'));
  } finally {
    for (const s of servers) s.close();
    await emulator.stop();
  }
  process.exit(0);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
