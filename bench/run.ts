import { cpus, loadavg, totalmem } from 'node:os';
import { LOCAL_GCLOUD_PROJECT } from '#functions/config/paths';
import { startEmulator } from '#functions/local/emulator';
import { resetStore } from '#functions/local/clearStore';
import { coldStartFigures, type LoadFigure } from './coldStart';
import { drive, roundTripsOf, type LoadResult } from './load';
import { driveClosedOperation, drivePaced, drivePacedOperation } from './paced';
import type { Scenario, ScenarioTarget } from './scenario';
import { startBenchServer, type BenchServer } from './serverProcess';

/**
 * `npm run bench`: starts the Firestore emulator and the server under measurement in its own
 * process (bench/server.ts: every endpoint group, and the bare HTTP floor), then drives each
 * scenario with autocannon or paced clients from this process, and prints requests/s, p50/p99
 * latency, store round trips per request (warm instance), the server's CPU milliseconds per
 * request (`process.cpuUsage` of the server process over the load), the task worker's CPU per
 * task it was given (bench/taskWorker.ts: the background work, over the load and its drain), the added latency over a
 * store-only floor doing the same store work in the same run, and per endpoint group the
 * cold-start module load time and resident memory beside a floor.
 * BENCH_SECONDS (default 5) sets each scenario's length; BENCH_ONLY=text (or text|text) runs the scenarios
 * whose name contains the text (and skips the cold-start table unless the text is `cold`).
 */
async function main(): Promise<void> {
  const report = (text: string) => process.stdout.write(`${text}\n`);
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) console[level] = () => undefined;
  const seconds = Number(process.env.BENCH_SECONDS || 5);
  const only = process.env.BENCH_ONLY?.toLowerCase();
  // `a|b` runs the scenarios matching either text (one report, one Targets table).
  const texts = only?.split('|').filter((text) => text.length > 0) ?? [];
  const selected = (s: Scenario): boolean =>
    texts.length === 0 || texts.some((text) => s.name.toLowerCase().includes(text) || (s.floorPair ?? '').includes(text) || (s.cpuPair ?? '').includes(text));
  process.env.GCLOUD_PROJECT ??= LOCAL_GCLOUD_PROJECT;
  process.env.METADATA_SERVER_DETECTION ??= 'none';
  process.env.TESSERA_EXPOSE_ROUND_TRIPS = 'true';
  // The outbound-webhook scenarios deliver to receivers on loopback, as under `npm start`.
  process.env.TESSERA_WEBHOOKS_ALLOW_LOOPBACK = 'on';

  // Other processes on the machine move every rate and time: the report states the load it ran under.
  const startLoad = loadAverage();
  const sections: string[] = [
    `Tessera benchmark, ${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${seconds} s per scenario, local stack on the Firestore emulator`,
  ];
  // Cold start first, on a quiet machine (no emulator, no load).
  if (!only || only === 'cold') {
    const { GROUP_FUNCTIONS } = await import('#functions/app/groupNames');
    const { floor, groups } = await coldStartFigures(Object.keys(GROUP_FUNCTIONS), 7);
    const row = (g: LoadFigure) =>
      `| ${g.name} | ${g.loadMs.toFixed(0)} | ${(g.loadMs / floor.loadMs).toFixed(2)}× | ${g.cpuMs.toFixed(0)} | ${(g.cpuMs / floor.cpuMs).toFixed(2)}× | ${g.rssMb.toFixed(0)} |`;
    sections.push(
      [
        '',
        'Cold start per endpoint group (fresh process: functions/lib/index.js plus what its first request loads; median of 7 rounds, floor and groups interleaved)',
        '',
        '| group | module load ms | vs floor (target ≤ 1.25×) | load CPU ms | CPU vs floor | RSS after load MB |',
        '|---|---|---|---|---|---|',
        row(floor),
        ...groups.map(row),
      ].join('\n'),
    );
    process.stderr.write('measured: cold start\n');
    if (only === 'cold') {
      report(sections.join('\n'));
      return;
    }
  }

  const emulator = await startEmulator();
  process.env.FIRESTORE_EMULATOR_HOST = emulator.host;
  let server: BenchServer | null = null;
  try {
    server = await startBenchServer();
    const { createDeps } = await import('#functions/app/deps');
    const { InProcessTaskQueue } = await import('#functions/tasks/inProcessQueue');
    const { randomDemoSpec, seedDemo } = await import('#functions/local/seed');
    const { SCENARIOS } = await import('./scenarios');
    // The bench's own dependencies: seeding and the store floors (never serving requests).
    const deps = createDeps({ tasks: new InProcessTaskQueue() });
    const bench = server;

    const rows: string[] = [];
    const targetRows: string[] = [];
    const latencies = new Map<string, { server?: LoadResult; floor?: LoadResult }>();
    /** A floor's pair label per server scenario (a diagnostic variant shares its floor under its own label). */
    const pairLabel = (scenario: Scenario) => (scenario.backgroundDeferred ? `${scenario.floorPair}, background deferred` : scenario.floorPair!);
    const cpuPairs = new Map<string, { server?: number; floor?: number }>();
    const line = (name: string, r: LoadResult, trips: string, cpuMs: string, worker: string, backlogSeconds: number) =>
      `| ${name} | ${Math.round(r.requestsPerSec)} | ${r.p50} | ${r.p99} | ${r.total - r.non2xx}/${r.total} | ${trips} | ${cpuMs} | ${worker} | ${backlogSeconds.toFixed(1)} |`;
    /** The task worker's CPU per task it was given over a load and the drain after it (the background work the load caused). */
    const backgroundOf = async <T>(run: () => Promise<T>): Promise<{ value: T; backlog: number; worker: string }> => {
      const [cpuBefore, tasksBefore] = [await bench.workerCpuMs(), await bench.tasksEnqueued()];
      const value = await run();
      const backlog = await bench.drain();
      const [cpuAfter, tasksAfter] = [await bench.workerCpuMs(), await bench.tasksEnqueued()];
      const given = Object.entries(tasksAfter).map(([queue, n]) => [queue, n - (tasksBefore[queue] ?? 0)] as const).filter(([, n]) => n > 0);
      const tasks = given.reduce((sum, [, n]) => sum + n, 0);
      const worker = tasks === 0 ? '–' : `${((cpuAfter - cpuBefore) / tasks).toFixed(2)} (${given.map(([queue, n]) => `${n} ${queue}`).join(', ')})`;
      return { value, backlog, worker };
    };
    /** Server CPU ms per request over a load. */
    const measuredCpu = async <T extends LoadResult>(load: () => Promise<T>): Promise<{ result: T; perRequest: number }> => {
      const before = await bench.cpuMs();
      const result = await load();
      const after = await bench.cpuMs();
      return { result, perRequest: (after - before) / Math.max(1, result.total) };
    };

    const floorRun = await measuredCpu(() => drive(bench.floorUrl, { method: 'GET', path: '/' }, 10, seconds));
    const floorCpu = floorRun.perRequest;
    rows.push(line('floor: bare node:http, fixed JSON (in the server process)', floorRun.result, '0', floorCpu.toFixed(3), '–', 0));
    const cpuRatios: number[] = [];
    const secondsOf = (scenario: Scenario) => Math.max(seconds, scenario.minSeconds ?? 0);
    const measured: Scenario[] = [];

    for (const scenario of SCENARIOS.filter(selected)) {
      // Each scenario starts from an empty store (what earlier scenarios wrote would slow the
      // emulator) and gets its own project, so rate limits and data never interact.
      await resetStore({
        clear: () => emulator.clear(process.env.GCLOUD_PROJECT!),
        drain: () => bench.drain(),
        onRetry: (retry, err) => process.stderr.write(`store reset before ${scenario.name}: retry ${retry} after ${err.message}\n`),
      });
      const project = await seedDemo(deps.db, randomDemoSpec(), deps.clock.now());
      const url = scenario.servedByFloor ? bench.floorUrl : scenario.unmetered ? bench.unmeteredUrl : bench.baseUrl;
      const ctx = { deps, server: bench, project, baseUrl: url };
      if (scenario.storeOperation) {
        const operation = await scenario.storeOperation(ctx);
        const result = await drivePacedOperation(operation, { clients: 10, perClientPerSecond: 1, ...scenario.paced, seconds: secondsOf(scenario) });
        rows.push(line(scenario.name, result, 'no server', '–', '–', await bench.drain()));
        if (scenario.floorPair) latencies.set(scenario.floorPair, { ...latencies.get(scenario.floorPair), floor: result });
        process.stderr.write(`measured: ${scenario.name}\n`);
        continue;
      }
      const request = await scenario.prepare!(ctx);
      await roundTripsOf(url, request); // warm the instance (key cache, connections)
      const probe = await roundTripsOf(url, request);
      await bench.drain(); // the warm-up's own background work is not the scenario's
      const {
        value: { result, perRequest },
        backlog,
        worker,
      } = await backgroundOf(async () => {
        if (scenario.backgroundDeferred) await bench.holdBackground(true);
        const load = await measuredCpu(() => (scenario.paced ? drivePaced(url, request, { ...scenario.paced, seconds: secondsOf(scenario) }) : drive(url, request, scenario.connections ?? 10, secondsOf(scenario))));
        if (scenario.backgroundDeferred) await bench.holdBackground(false);
        return load;
      });
      // A floor that fails answers fast and cheap: its figures would flatter every route beside it.
      if (scenario.servedByFloor && result.non2xx > 0) throw new Error(`${scenario.name}: the floor answered ${result.non2xx} of ${result.total} requests with a non-2xx status`);
      if (!scenario.servedByFloor) cpuRatios.push(perRequest / floorCpu);
      if (scenario.cpuPair) cpuPairs.set(scenario.cpuPair, { ...cpuPairs.get(scenario.cpuPair), [scenario.servedByFloor ? 'floor' : 'server']: perRequest });
      const trips = scenario.servedByFloor
        ? 'floor'
        : probe.roundTrips === null
          ? '?'
          : `${probe.roundTrips} (status ${probe.status})${probe.documentsRead ? `, ${probe.documentsRead} docs read` : ''}`;
      rows.push(line(scenario.name, result, trips, perRequest.toFixed(2), worker, backlog));
      if (scenario.target) targetRows.push(...targetLines(scenario.name, scenario.target, { roundTrips: probe.roundTrips, requestsPerSecond: result.requestsPerSec, p50Ms: result.p50, backgroundSeconds: backlog }));
      if (scenario.storeCallsFloor) {
        const floor = await scenario.storeCallsFloor(ctx);
        // A floor doing less than the request would flatter it: same round trips and documents, or no figure.
        if (floor.roundTrips !== probe.roundTrips || floor.documentsRead !== probe.documentsRead) {
          throw new Error(`${scenario.name}: its store floor issues ${floor.roundTrips} round trips (${floor.documentsRead} documents), the request ${probe.roundTrips} (${probe.documentsRead})`);
        }
        const floorResult = await driveClosedOperation(floor.operation, scenario.connections ?? 10, secondsOf(scenario));
        if (floorResult.non2xx > 0) throw new Error(`${scenario.name}: its store floor failed ${floorResult.non2xx} of ${floorResult.total} operations`);
        rows.push(line(`↳ its store floor: the same ${floor.roundTrips} store calls (${floor.documentsRead} + 1 documents, same masks), in parallel, from the bench's process, same closed loop`, floorResult, 'no server', '–', '–', 0));
        const limit = scenario.target?.p50VsStoreCalls;
        if (limit !== undefined) {
          const ratio = result.p50 / Math.max(1, floorResult.p50);
          targetRows.push(`| ${scenario.name} | p50 ≤ ${limit}× the same store calls' p50 (${scenario.target!.source}) | ${ratio.toFixed(2)}× (${result.p50} vs ${floorResult.p50} ms) | ${ratio <= limit ? 'yes' : 'no'} |`);
        }
      }
      if (scenario.floorPair) latencies.set(pairLabel(scenario), { ...latencies.get(pairLabel(scenario)), server: result });
      measured.push(scenario);
      process.stderr.write(`measured: ${scenario.name}\n`);
    }
    // Targets over a pair (CPU or latency beside a floor) once both sides have run.
    for (const scenario of measured.filter((s) => s.target)) {
      const cpu = scenario.cpuPair ? cpuPairs.get(scenario.cpuPair) : undefined;
      const latency = scenario.floorPair ? latencies.get(pairLabel(scenario)) : undefined;
      targetRows.push(...pairTargetLines(scenario.name, scenario.target!, { cpu, latency, seconds: secondsOf(scenario) }));
    }

    sections.push(
      [
        '',
        '| scenario | req/s | p50 ms | p99 ms | 2xx/total | store round trips (warm) | server CPU ms/request | task worker CPU ms/task (tasks given), load + drain | background work left after the load (s) |',
        '|---|---|---|---|---|---|---|---|---|',
        ...rows,
      ].join('\n'),
    );
    // A diagnostic variant is compared with its floor's run.
    for (const [label, pair] of latencies) {
      const floorKey = label.replace(/, background deferred$/, '');
      if (floorKey !== label && !pair.floor) latencies.set(label, { ...pair, floor: latencies.get(floorKey)?.floor });
    }
    const pairs = [...latencies.entries()].filter(([, pair]) => pair.server && pair.floor);
    if (pairs.length > 0) {
      sections.push(
        [
          '',
          'Added latency over the store-only floor (same load, same run; target p50 ≤ 3 ms, p99 ≤ 10 ms at 10 concurrent clients)',
          '',
          '| request | server p50 / p99 ms | store floor p50 / p99 ms | added p50 / p99 ms |',
          '|---|---|---|---|',
          ...pairs.map(([name, { server: s, floor: f }]) => `| ${name} | ${s!.p50} / ${s!.p99} | ${f!.p50} / ${f!.p99} | ${s!.p50 - f!.p50} / ${s!.p99 - f!.p99} |`),
        ].join('\n'),
      );
    }
    const cpuRows = [...cpuPairs.entries()].filter(([, pair]) => pair.server !== undefined && pair.floor !== undefined);
    if (cpuRows.length > 0) {
      sections.push(
        [
          '',
          'Server CPU per request over the bare node:http server doing the same store work (same closed-loop load, same run; target ≤ 3×)',
          '',
          '| request | route CPU ms/request | bare HTTP + same store work, CPU ms/request | ratio |',
          '|---|---|---|---|',
          ...cpuRows.map(([name, pair]) => `| ${name} | ${pair.server!.toFixed(2)} | ${pair.floor!.toFixed(2)} | ${(pair.server! / pair.floor!).toFixed(1)}× |`),
        ].join('\n'),
      );
    }
    if (targetRows.length > 0) {
      sections.push(['', 'Targets (this run; round trips are exact, rates and times depend on the machine’s load)', '', '| scenario | target | this run | met? |', '|---|---|---|---|', ...targetRows].join('\n'));
    }
    if (cpuRatios.length > 0) sections.push('', `Server CPU per request vs the bare HTTP floor's (${floorCpu.toFixed(3)} ms; target ≤ 3×): ${Math.min(...cpuRatios).toFixed(1)}× to ${Math.max(...cpuRatios).toFixed(1)}×.`);
    const notes = SCENARIOS.filter((s) => s.note && selected(s)).map((s) => `- ${s.name}: ${s.note}`);
    if (notes.length > 0) sections.push('', 'Notes:', ...notes);
    sections.push('', `Load average (1, 5, 15 min) at the start: ${startLoad}; at the end: ${loadAverage()}.`);
    report(sections.join('\n'));
  } finally {
    server?.stop();
    await emulator.stop();
  }
  process.exit(0);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});

function loadAverage(): string {
  return loadavg()
    .map((n) => n.toFixed(1))
    .join(', ');
}

interface Measured {
  roundTrips: number | null;
  requestsPerSecond: number;
  p50Ms: number;
  backgroundSeconds: number;
}

/** One row per figure a scenario's target names: the target, this run's figure, met or not. */
function targetLines(name: string, target: ScenarioTarget, run: Measured): string[] {
  const rows: string[] = [];
  const row = (what: string, limit: string, figure: string, met: boolean) => rows.push(`| ${name} | ${what} ${limit} (${target.source}) | ${figure} | ${met ? 'yes' : 'no'} |`);
  if (target.roundTrips !== undefined) row('store round trips', `≤ ${target.roundTrips}`, String(run.roundTrips ?? '?'), run.roundTrips !== null && run.roundTrips <= target.roundTrips);
  if (target.requestsPerSecond !== undefined) row('req/s', `≥ ${target.requestsPerSecond}`, run.requestsPerSecond.toFixed(0), run.requestsPerSecond >= target.requestsPerSecond);
  if (target.p50Ms !== undefined) row('p50', `≤ ${target.p50Ms} ms`, `${run.p50Ms} ms`, run.p50Ms <= target.p50Ms);
  if (target.backgroundSeconds !== undefined) row('background left', `≤ ${target.backgroundSeconds} s`, `${run.backgroundSeconds.toFixed(1)} s`, run.backgroundSeconds <= target.backgroundSeconds);
  return rows;
}

/** One row per pair figure a scenario's target names: CPU per request over its cpuPair floor, added latency over its floorPair floor. */
function pairTargetLines(
  name: string,
  target: ScenarioTarget,
  run: { cpu?: { server?: number; floor?: number }; latency?: { server?: LoadResult; floor?: LoadResult }; seconds: number },
): string[] {
  const rows: string[] = [];
  const row = (what: string, limit: string, figure: string, met: boolean) => rows.push(`| ${name} | ${what} ${limit} (${target.source}) | ${figure} | ${met ? 'yes' : 'no'} |`);
  const { cpu, latency } = run;
  if (target.cpuVsFloor !== undefined) {
    if (cpu?.server === undefined || cpu.floor === undefined) row('server CPU per request vs its floor', `≤ ${target.cpuVsFloor}×`, 'floor not run', false);
    else {
      const ratio = cpu.server / cpu.floor;
      row('server CPU per request vs its floor', `≤ ${target.cpuVsFloor}×`, `${ratio.toFixed(2)}× (${cpu.server.toFixed(2)} vs ${cpu.floor.toFixed(2)} ms)`, ratio <= target.cpuVsFloor);
    }
  }
  for (const [what, limit, of] of [
    ['added p50 over the store floor', target.addedP50Ms, (r: LoadResult) => r.p50],
    ['added p99 over the store floor', target.addedP99Ms, (r: LoadResult) => r.p99],
  ] as const) {
    if (limit === undefined) continue;
    if (!latency?.server || !latency.floor) row(what, `≤ +${limit} ms`, 'floor not run', false);
    else {
      const added = of(latency.server) - of(latency.floor);
      row(what, `≤ +${limit} ms`, `${added >= 0 ? '+' : ''}${added} ms (${of(latency.server)} vs ${of(latency.floor)}; ${run.seconds} s)`, added <= limit);
    }
  }
  return rows;
}
