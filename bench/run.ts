import { cpus, loadavg, totalmem } from 'node:os';
import { LOCAL_GCLOUD_PROJECT } from '#functions/config/paths';
import { startEmulator } from '#functions/local/emulator';
import { resetStore } from '#functions/local/clearStore';
import { coldStartFigures, type LoadFigure } from './coldStart';
import { drive, roundTripsOf, type LoadResult } from './load';
import { driveClosedOperation, drivePaced, drivePacedOperation } from './paced';
import type { Scenario, ScenarioTarget } from './scenario';
import { startBenchServer, type BenchServer } from './serverProcess';
import { descendantsCpuMs } from './processCpu';
import { acrossRounds } from '../fixtures/benchTargetRounds';

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
 * BENCH_SCENARIO_CPU_PROF=dir writes a CPU profile of the server and of the task worker per scenario;
 * BENCH_WARMUP_SECONDS=n drives the first closed-loop scenario n seconds, unmeasured, before any load;
 * BENCH_ROUNDS=n runs the selected scenarios n times over and adds the targets met across the rounds;
 * BENCH_TASK_SHAPES (with BENCH_ROUNDS) runs the scenarios once per shape of the background work.
 */
async function main(): Promise<void> {
  const report = (text: string) => process.stdout.write(`${text}\n`);
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) console[level] = () => undefined;
  const seconds = Number(process.env.BENCH_SECONDS || 5);
  const only = process.env.BENCH_ONLY?.toLowerCase();
  // BENCH_SCENARIO_CPU_PROF=dir: the server's profile over each scenario's load, the worker's over the load and its drain (bench/scenarioProfile.ts).
  const scenarioProfileDir = process.env.BENCH_SCENARIO_CPU_PROF;
  // BENCH_WARMUP_SECONDS=n: n seconds of the first closed-loop scenario's load, once, before anything is measured (default 0).
  const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS || 0);
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
    /** Server CPU ms per request over a load (and the store emulator's, when /proc tells it). */
    const measuredCpu = async <T extends LoadResult>(load: () => Promise<T>): Promise<{ result: T; perRequest: number; storePerRequest: number | null }> => {
      const [before, storeBefore] = [await bench.cpuMs(), emulatorCpuMs()];
      const result = await load();
      const [after, storeAfter] = [await bench.cpuMs(), emulatorCpuMs()];
      const requests = Math.max(1, result.total);
      return { result, perRequest: (after - before) / requests, storePerRequest: storeBefore === null || storeAfter === null ? null : (storeAfter - storeBefore) / requests };
    };
    const storeRows: string[] = [];
    /** The store calls each recorded floor replays, one line each (bench/railFloor.ts). */
    const floorCalls: string[] = [];
    /** The bench process's own CPU ms per operation over a load of store floor operations (and the emulator's, when /proc tells it). */
    const clientCpu = async (load: () => Promise<LoadResult>): Promise<{ result: LoadResult; perOperation: number; storePerOperation: number | null }> => {
      const [before, storeBefore] = [process.cpuUsage(), emulatorCpuMs()];
      const result = await load();
      const used = process.cpuUsage(before);
      const storeAfter = emulatorCpuMs();
      const operations = Math.max(1, result.total);
      return { result, perOperation: (used.user + used.system) / 1000 / operations, storePerOperation: storeBefore === null || storeAfter === null ? null : (storeAfter - storeBefore) / operations };
    };

    const floorRun = await measuredCpu(() => drive(bench.floorUrl, { method: 'GET', path: '/' }, 10, seconds));
    const floorCpu = floorRun.perRequest;
    rows.push(line('floor: bare node:http, fixed JSON (in the server process)', floorRun.result, '0', floorCpu.toFixed(3), '–', 0));
    const cpuRatios: number[] = [];
    const secondsOf = (scenario: Scenario) => Math.max(seconds, scenario.minSeconds ?? 0);
    const measured: Scenario[] = [];

    // BENCH_TASK_SHAPES='deployed,held,none,in-server' (a diagnostic): the selected scenarios once
    // per shape of the background, alternating, BENCH_ROUNDS times (paired under the same load).
    // `held` is the deployed shape with the worker holding its tasks until the load ends.
    const shapeNames = ['deployed', 'held', 'none', 'in-server'] as const;
    const isShape = (text: string): text is (typeof shapeNames)[number] => (shapeNames as readonly string[]).includes(text);
    const shapes = (process.env.BENCH_TASK_SHAPES ?? '').split(',').filter((text) => text.length > 0).map((text) => {
      if (!isShape(text)) throw new Error(`BENCH_TASK_SHAPES: unknown shape ${text} (${shapeNames.join(', ')})`);
      return text;
    });
    // BENCH_ROUNDS=n: the selected scenarios n times over, alternating (a target then counts as met
    // only in the rounds it was met in: one run's figure moves more than some targets' margins).
    const rounds = Number(process.env.BENCH_ROUNDS || 1);
    const plan = Array.from({ length: rounds }, (_, round) =>
      (shapes.length === 0 ? [null] : shapes).flatMap((shape) =>
        SCENARIOS.filter(selected).map((scenario) => ({ shape, scenario: inRound(scenario, shape === null ? (rounds > 1 ? `[round ${round + 1}] ` : '') : `[${shape}, round ${round + 1}] `) })),
      ),
    ).flat();
    // BENCH_WARMUP_SECONDS: the first closed-loop scenario's load, unmeasured, on its own store
    // (cleared after), so that the figures are of a warm emulator JVM and server (JIT), not of a
    // run's first minute (docs/benchmarks.md, section railprof: 1–2 minutes of load here).
    const warmer = plan.find(({ scenario }) => scenario.prepare && !scenario.paced && !scenario.servedByFloor);
    if (warmupSeconds > 0 && warmer) {
      await resetStore({ clear: () => emulator.clear(process.env.GCLOUD_PROJECT!), drain: () => bench.drain() });
      const project = await seedDemo(deps.db, randomDemoSpec(), deps.clock.now());
      const url = warmer.scenario.unmetered ? bench.unmeteredUrl : bench.baseUrl;
      const request = await warmer.scenario.prepare!({ deps, server: bench, project, baseUrl: url });
      await drive(url, request, warmer.scenario.connections ?? 10, warmupSeconds);
      await bench.drain();
      process.stderr.write(`warmed up: ${warmupSeconds} s of ${warmer.scenario.name}\n`);
    }
    for (const { shape, scenario } of plan) {
      if (shape !== null) await bench.taskShape(shape === 'held' ? 'deployed' : shape);
      const holdBackground = scenario.backgroundDeferred || shape === 'held';
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
      const profileLabel = `${String(measured.length + 1).padStart(2, '0')}-${scenario.name.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 60)}`;
      if (scenarioProfileDir) await bench.profileStart();
      const {
        value: { result, perRequest, storePerRequest },
        backlog,
        worker,
      } = await backgroundOf(async () => {
        if (holdBackground) await bench.holdBackground(true);
        const load = await measuredCpu(() => (scenario.paced ? drivePaced(url, request, { ...scenario.paced, seconds: secondsOf(scenario) }) : drive(url, request, scenario.connections ?? 10, secondsOf(scenario))));
        // The server's profile is the load window's; the worker's runs on through the drain (the background the load caused).
        if (scenarioProfileDir) await bench.profileStop('server', scenarioProfileDir, profileLabel);
        if (holdBackground) await bench.holdBackground(false);
        return load;
      });
      if (scenarioProfileDir) await bench.profileStop('worker', scenarioProfileDir, profileLabel);
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
      if (storePerRequest !== null) storeRows.push(`| ${scenario.name} | ${perRequest.toFixed(2)} | ${storePerRequest.toFixed(2)} |`);
      if (scenario.target) targetRows.push(...targetLines(scenario.name, scenario.target, { roundTrips: probe.roundTrips, requestsPerSecond: result.requestsPerSec, p50Ms: result.p50, backgroundSeconds: backlog }));
      if (scenario.storeCallsFloor) {
        const floor = await scenario.storeCallsFloor(ctx, request);
        // A floor doing less than the request would flatter it: same round trips and documents, or no figure.
        if (floor.roundTrips !== probe.roundTrips || floor.documentsRead !== probe.documentsRead) {
          throw new Error(`${scenario.name}: its store floor issues ${floor.roundTrips} round trips (${floor.documentsRead} documents), the request ${probe.roundTrips} (${probe.documentsRead})`);
        }
        if (floor.warmSeconds) await driveClosedOperation(floor.operation, scenario.connections ?? 10, floor.warmSeconds);
        const floorRun = await clientCpu(() => driveClosedOperation(floor.operation, scenario.connections ?? 10, secondsOf(scenario)));
        const floorResult = floorRun.result;
        if (floorResult.non2xx > 0) throw new Error(`${scenario.name}: its store floor failed ${floorResult.non2xx} of ${floorResult.total} operations`);
        const retried = floor.retries ? `; ${floor.retries()} transaction attempts retried` : '';
        const floorLabel = floor.label ?? `its store floor: the same ${floor.roundTrips} store calls (${floor.documentsRead} + 1 documents, same masks), in parallel, from the bench's process, same closed loop`;
        rows.push(line(`↳ ${floorLabel}${retried}`, floorResult, 'no server', `${floorRun.perOperation.toFixed(2)} (bench process)`, '–', 0));
        if (floorRun.storePerOperation !== null) storeRows.push(`| ↳ its store floor (first column: the bench process's CPU per replay) | ${floorRun.perOperation.toFixed(2)} | ${floorRun.storePerOperation.toFixed(2)} |`);
        if (floor.cpuOnly) {
          const solo = await clientCpu(() => driveClosedOperation(floor.operation, 1, secondsOf(scenario)));
          if (solo.result.non2xx > 0) throw new Error(`${scenario.name}: its store floor failed ${solo.result.non2xx} of ${solo.result.total} operations alone`);
          rows.push(line(`↳ the same store calls, CPU only: one client alone (a quiet single loop)${floor.retries ? `; ${floor.retries()} retried in all` : ''}`, solo.result, 'no server', `${solo.perOperation.toFixed(2)} (bench process)`, '–', 0));
          if (solo.storePerOperation !== null) storeRows.push(`| ↳ the same store calls, one client alone (first column: the bench process's CPU per replay) | ${solo.perOperation.toFixed(2)} | ${solo.storePerOperation.toFixed(2)} |`);
        }
        if (floor.calls) floorCalls.push(`- ${scenario.name}: ${floor.roundTrips} round trips`, ...floor.calls.map((text) => `  ${text}`));
        if (scenario.target?.requestsPerSecond !== undefined) {
          const rate = scenario.target.requestsPerSecond;
          targetRows.push(`| ${scenario.name} | its store floor's req/s ≥ ${rate}: the same store calls with no server (${scenario.target.source}) | ${floorResult.requestsPerSec.toFixed(0)} | ${floorResult.requestsPerSec >= rate ? 'yes' : 'no'} |`);
        }
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
    if (storeRows.length > 0) {
      sections.push(
        [
          '',
          "CPU per request during the load by process: the server's, and the Firestore emulator's JVM (/proc; 10 ms ticks), which shares the 2 cores",
          '',
          '| scenario | server CPU ms/request | store emulator CPU ms/request |',
          '|---|---|---|',
          ...storeRows,
        ].join('\n'),
      );
    }
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
    if (rounds > 1 && targetRows.length > 0) {
      sections.push(['', `Targets across the ${rounds} rounds (met only where met in every round)`, '', '| scenario | target | rounds met | figures, round by round |', '|---|---|---|---|', ...acrossRounds(targetRows)].join('\n'));
    }
    if (cpuRatios.length > 0) sections.push('', `Server CPU per request vs the bare HTTP floor's (${floorCpu.toFixed(3)} ms; target ≤ 3×): ${Math.min(...cpuRatios).toFixed(1)}× to ${Math.max(...cpuRatios).toFixed(1)}×.`);
    if (floorCalls.length > 0) sections.push('', 'Store calls each recorded floor replays (one notification, recorded at the Firestore client; `{new}`: an id made up per notification, fresh per replay; `{shard}`: a rollup shard, picked at random per replay):', '', ...floorCalls);
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

/**
 * A scenario as run in one round (or task shape): its name, and the labels that pair it with
 * its floors, carry the round's prefix, so that each round's CPU and latency pairs are its own.
 */
function inRound(scenario: Scenario, prefix: string): Scenario {
  if (!prefix) return scenario;
  return {
    ...scenario,
    name: `${prefix}${scenario.name}`,
    ...(scenario.floorPair ? { floorPair: `${prefix}${scenario.floorPair}` } : {}),
    ...(scenario.cpuPair ? { cpuPair: `${prefix}${scenario.cpuPair}` } : {}),
  };
}

/** The Firestore emulator's CPU so far (the JVM the bench started), or null when /proc cannot tell. */
function emulatorCpuMs(): number | null {
  return descendantsCpuMs(process.pid, /cloud-firestore-emulator|cloud_firestore_emulator/);
}

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
