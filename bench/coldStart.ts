import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const FUNCTIONS = resolve(__dirname, '..', '..', '..', 'functions');
const LIB = join(FUNCTIONS, 'lib');

export interface LoadFigure {
  name: string;
  /** Median over the runs. */
  loadMs: number;
  rssMb: number;
}

/**
 * What a group's instance loads before answering its first request: functions/lib/index.js,
 * then what index.ts loads on that request (dependencies, Cloud Tasks adapter, the pipeline and
 * the group's own routes; see test/foundation/coldStart.test.ts).
 */
const groupScript = (group: string) => `
  const t0 = performance.now();
  const path = require('node:path');
  const lib = ${JSON.stringify(LIB)};
  require(path.join(lib, 'index.js'));
  (async () => {
    require(path.join(lib, 'app', 'deps.js'));
    require(path.join(lib, 'tasks', 'cloudTasksQueue.js'));
    require(path.join(lib, 'http', 'pipeline.js'));
    await require(path.join(lib, 'app', 'groupLoaders.js')).GROUP_LOADERS[${JSON.stringify(group)}]();
    const ms = performance.now() - t0;
    process.stdout.write(JSON.stringify({ ms, rss: process.memoryUsage().rss }));
  })();`;

/** The floor: the three packages every function needs, imported alone. */
const FLOOR_SCRIPT = `
  const t0 = performance.now();
  require('firebase-admin/app');
  require('firebase-admin/firestore');
  require('firebase-functions/v2/https');
  require('express');
  const ms = performance.now() - t0;
  process.stdout.write(JSON.stringify({ ms, rss: process.memoryUsage().rss }));`;

function functionsDotEnv(): Record<string, string> {
  const lines = readFileSync(join(FUNCTIONS, '.env'), 'utf8').split('\n').map((line) => line.trim());
  return Object.fromEntries(lines.filter((line) => line && !line.startsWith('#') && line.includes('=')).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
}

async function measure(name: string, script: string, runs: number): Promise<LoadFigure> {
  const samples: { ms: number; rss: number }[] = [];
  for (let i = 0; i < runs; i += 1) {
    // A fresh process each time, from functions/ (its node_modules first), as an instance starts.
    const { stdout } = await run(process.execPath, ['-e', script], { cwd: FUNCTIONS, env: { ...process.env, ...functionsDotEnv(), FIRESTORE_EMULATOR_HOST: '' } });
    samples.push(JSON.parse(stdout) as { ms: number; rss: number });
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  return { name, loadMs: median(samples.map((s) => s.ms)), rssMb: median(samples.map((s) => s.rss)) / 2 ** 20 };
}

/** The floor first, then each group; `runs` fresh processes each (the median is reported). */
export async function coldStartFigures(groups: readonly string[], runs: number): Promise<{ floor: LoadFigure; groups: LoadFigure[] }> {
  await measure('warm-up', FLOOR_SCRIPT, 1); // the first process after a build reads a cold disk
  const floor = await measure('floor: firebase-admin (app, firestore), firebase-functions (v2/https), express', FLOOR_SCRIPT, runs);
  const figures: LoadFigure[] = [];
  for (const group of groups) figures.push(await measure(group, groupScript(group), runs));
  return { floor, groups: figures };
}
