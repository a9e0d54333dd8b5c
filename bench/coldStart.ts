import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const FUNCTIONS = resolve(__dirname, '..', '..', '..', 'functions');
const LIB = join(FUNCTIONS, 'lib');

export interface LoadFigure {
  name: string;
  /** Medians over the runs: wall-clock load time, and the CPU time (user + system) it took. */
  loadMs: number;
  cpuMs: number;
  rssMb: number;
}

interface Sample {
  ms: number;
  cpuMs: number;
  rss: number;
}

/**
 * What a group's instance loads before answering its first request: functions/lib/index.js,
 * then what index.ts loads on that request (dependencies, Cloud Tasks adapter, the pipeline and
 * the group's own routes; see test/foundation/coldStart.test.ts).
 */
const groupScript = (group: string) => `
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const path = require('node:path');
  const lib = ${JSON.stringify(LIB)};
  require(path.join(lib, 'index.js'));
  (async () => {
    require(path.join(lib, 'app', 'deps.js'));
    require(path.join(lib, 'tasks', 'cloudTasksQueue.js'));
    require(path.join(lib, 'http', 'pipeline.js'));
    await require(path.join(lib, 'app', 'groupLoaders.js')).GROUP_LOADERS[${JSON.stringify(group)}]();
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(c0);
    process.stdout.write(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, rss: process.memoryUsage().rss }));
  })();`;

/** The floor: the three packages every function needs, imported alone. */
const FLOOR_SCRIPT = `
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  require('firebase-admin/app');
  require('firebase-admin/firestore');
  require('firebase-functions/v2/https');
  require('express');
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  process.stdout.write(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, rss: process.memoryUsage().rss }));`;

function functionsDotEnv(): Record<string, string> {
  const lines = readFileSync(join(FUNCTIONS, '.env'), 'utf8').split('\n').map((line) => line.trim());
  return Object.fromEntries(lines.filter((line) => line && !line.startsWith('#') && line.includes('=')).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
}

/** One fresh process, from functions/ (its node_modules first), as an instance starts. */
async function sample(script: string): Promise<Sample> {
  const { stdout } = await run(process.execPath, ['-e', script], { cwd: FUNCTIONS, env: { ...process.env, ...functionsDotEnv(), FIRESTORE_EMULATOR_HOST: '' } });
  return JSON.parse(stdout) as Sample;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function figure(name: string, samples: Sample[]): LoadFigure {
  return { name, loadMs: median(samples.map((s) => s.ms)), cpuMs: median(samples.map((s) => s.cpuMs)), rssMb: median(samples.map((s) => s.rss)) / 2 ** 20 };
}

/**
 * The floor and every group, `runs` rounds of one fresh process each, interleaved (floor, group
 * 1, group 2, …, then again), so that a burst of load from elsewhere on the machine lands on all
 * of them alike instead of on whichever was measured at that moment. CPU time is reported beside
 * wall time: it is far less sensitive to other processes on the machine.
 */
export async function coldStartFigures(groups: readonly string[], runs: number): Promise<{ floor: LoadFigure; groups: LoadFigure[] }> {
  await sample(FLOOR_SCRIPT); // the first process after a build reads a cold disk
  const floorSamples: Sample[] = [];
  const groupSamples = new Map<string, Sample[]>(groups.map((group) => [group, []]));
  for (let round = 0; round < runs; round += 1) {
    floorSamples.push(await sample(FLOOR_SCRIPT));
    for (const group of groups) groupSamples.get(group)!.push(await sample(groupScript(group)));
  }
  return {
    floor: figure('floor: firebase-admin (app, firestore), firebase-functions (v2/https), express', floorSamples),
    groups: groups.map((group) => figure(group, groupSamples.get(group)!)),
  };
}
