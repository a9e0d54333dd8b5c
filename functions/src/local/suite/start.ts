import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { DEMO_SPEC, LOCAL_GCLOUD_PROJECT, REPO_ROOT, RUNNING_FILE, STATE_DIR } from '../../config/paths';
import { SCHEDULED_WORKERS, WORKER_NAMES, type WorkerName } from '../../app/workers/scheduled';
import { ensureAuthUser, watchSignInLinks } from './authEmulator';
import { firestoreBinary, MissingPrerequisite, pubsubBinary } from './binaries';
import { configuredPorts, freePorts, HOST, readFirebaseJson, SUITE_EMULATORS, suiteConfig, type SuitePorts } from './config';
import { findJava, JAVA_HINT } from './java';
import { everyMs, triggerWorker } from './schedules';

/**
 * `npm run emulators`: the Firebase emulator suite as deployed — functions, Firestore, Hosting,
 * Cloud Tasks, Auth and Pub/Sub — started by firebase-tools from firebase.json, then seeded with
 * the demo project and its operator. State persists in .tessera/suite-export (`--import` /
 * `--export-on-exit`); `--fresh` starts clean. Ctrl-C stops everything, exporting first.
 *
 * Scheduled functions: the emulator does not run them on their schedule, so this process calls
 * them as Cloud Scheduler does (suite/schedules.ts).
 *
 * Settings (the end-to-end tests use them): TESSERA_SUITE_PORTS=free picks free ports instead of
 * firebase.json's; TESSERA_SUITE_DATA moves the export folder; TESSERA_SUITE_SCHEDULES=off stops
 * the suite's own timer that fires the scheduled workers; TESSERA_RUNNING_FILE moves running.json.
 */
const FIREBASE_BIN = join(REPO_ROOT, 'node_modules', 'firebase-tools', 'lib', 'bin', 'firebase.js');
const READY_TIMEOUT_MS = 300_000;
const STOP_TIMEOUT_MS = 60_000;

function prerequisites(cacheDir: string): Record<string, string> {
  const java = findJava();
  if (!java) throw new MissingPrerequisite(JAVA_HINT);
  const firestore = firestoreBinary(cacheDir);
  const pubsub = pubsubBinary();
  console.log(`Java ${java.major} (${java.binDir}); Firestore emulator: ${firestore.source}; Pub/Sub emulator: ${pubsub.source}`);
  return { PATH: `${java.binDir}${delimiter}${process.env.PATH ?? ''}`, ...firestore.env, ...pubsub.env };
}

async function main(): Promise<void> {
  const fresh = process.argv.includes('--fresh') || process.env.TESSERA_FRESH === '1';
  const dataDir = process.env.TESSERA_SUITE_DATA || join(STATE_DIR, 'suite-export');
  const projectId = LOCAL_GCLOUD_PROJECT;
  if (!existsSync(FIREBASE_BIN)) throw new MissingPrerequisite('firebase-tools is not installed: run npm install (it is a dev dependency).');
  mkdirSync(STATE_DIR, { recursive: true });
  const toolEnv = prerequisites(join(STATE_DIR, 'emulator-bin'));
  const base = readFirebaseJson(join(REPO_ROOT, 'firebase.json'));
  const ports = process.env.TESSERA_SUITE_PORTS === 'free' ? await freePorts() : configuredPorts(base);
  // Beside firebase.json: firebase-tools resolves functions/ and hosting-public/ from the config's folder.
  const configPath = join(REPO_ROOT, `firebase.suite-${process.pid}.local.json`);
  writeFileSync(configPath, JSON.stringify(suiteConfig(base, ports), null, 2));
  if (fresh) rmSync(dataDir, { recursive: true, force: true });
  const args = [FIREBASE_BIN, '--config', configPath, '--project', projectId, 'emulators:start', '--only', SUITE_EMULATORS.join(','), '--export-on-exit', dataDir];
  if (existsSync(join(dataDir, 'firebase-export-metadata.json'))) args.push('--import', dataDir);
  const logDir = join(STATE_DIR, `suite-logs-${process.pid}`);
  mkdirSync(logDir, { recursive: true });
  // Its own process group: the terminal's Ctrl-C reaches this process only, which then asks
  // firebase-tools once to stop (a second SIGINT would make it quit without exporting).
  const firebase = spawn(process.execPath, args, {
    cwd: logDir, // firebase-tools writes its *-debug.log files into its working directory
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      ...toolEnv,
      GCLOUD_PROJECT: projectId,
      // No metadata server locally; no telemetry or update checks over a network there is not.
      METADATA_SERVER_DETECTION: 'none',
      NO_UPDATE_NOTIFIER: '1',
      // Read by the functions: loopback receivers over http, as under `npm start` (refused deployed).
      TESSERA_WEBHOOKS_ALLOW_LOOPBACK: process.env.TESSERA_WEBHOOKS_ALLOW_LOOPBACK ?? 'on',
    },
  });
  let output = '';
  const forward = (stream: NodeJS.WriteStream) => (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
    stream.write(chunk);
  };
  firebase.stdout!.on('data', forward(process.stdout));
  firebase.stderr!.on('data', forward(process.stderr));
  const cleanup = () => {
    rmSync(configPath, { force: true });
    rmSync(logDir, { recursive: true, force: true });
    rmSync(RUNNING_FILE, { force: true });
  };
  const exited = new Promise<number>((resolve) => firebase.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
  let stopping = false;
  const background: { stop(): void }[] = []; // the sign-in link watcher and the scheduler
  const stop = async (reason: string, code = 0): Promise<void> => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${reason}: stopping the emulator suite (exporting its data to ${dataDir})…`);
    background.forEach((task) => task.stop());
    await stopFirebase(firebase, exited);
    cleanup();
    process.exit(code);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  void exited.then((code) => {
    if (stopping) return;
    cleanup();
    console.error(`firebase-tools exited (${code}) before it was asked to stop.`);
    process.exit(code || 1);
  });

  let summary: SeedSummary;
  try {
    await waitForReady(() => output, ports, exited);
    summary = await seed(ports, projectId);
  } catch (err) {
    console.error(err);
    return stop('start-up failed', 1);
  }
  const running = {
    baseUrl: `http://${HOST}:${ports.hosting}`,
    firestoreEmulatorHost: `${HOST}:${ports.firestore}`,
    gcloudProject: projectId,
    pid: process.pid,
    suite: { authEmulatorHost: `${HOST}:${ports.auth}`, pubsubEmulatorHost: `${HOST}:${ports.pubsub}`, tasksEmulatorHost: `${HOST}:${ports.tasks}`, functionsEmulatorHost: `${HOST}:${ports.functions}` },
  };
  writeFileSync(RUNNING_FILE, JSON.stringify(running, null, 2));
  background.push(
    watchSignInLinks(running.suite.authEmulatorHost, projectId, (code) => console.log(`\nSign-in link for ${code.email} (from the Auth emulator; open it in the browser that asked):\n  ${code.oobLink}\n`)),
  );
  if (process.env.TESSERA_SUITE_SCHEDULES !== 'off') {
    for (const worker of WORKER_NAMES) background.push(schedule(worker, SCHEDULED_WORKERS[worker].schedule, running.suite.functionsEmulatorHost, projectId));
  }
  printSummary(running.baseUrl, summary);
}

async function stopFirebase(firebase: ChildProcess, exited: Promise<number>): Promise<void> {
  if (firebase.exitCode !== null) return;
  firebase.kill('SIGINT');
  const timer = setTimeout(() => {
    console.error(`firebase-tools did not stop within ${STOP_TIMEOUT_MS / 1000} s; killing its process group.`);
    killGroup(firebase, 'SIGKILL');
  }, STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
  // Emulators firebase-tools started and failed to stop (a JVM behind a launcher script).
  killGroup(firebase, 'SIGKILL');
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    /* the group is gone */
  }
}

async function waitForReady(output: () => string, ports: SuitePorts, exited: Promise<number>): Promise<void> {
  let done = false;
  void exited.then(() => (done = true));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!done && Date.now() < deadline) {
    if (output().includes('All emulators ready')) {
      // Through Hosting's rewrite: the functions are loaded and answer.
      try {
        const response = await fetch(`http://${HOST}:${ports.hosting}/v1/healthz`);
        if (response.ok) return;
      } catch {
        /* not yet */
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  if (!done) throw new Error(`the emulator suite was not ready within ${READY_TIMEOUT_MS / 1000} s`);
  await new Promise(() => undefined); // firebase-tools exited: the exit handler reports it
}

interface SeedSummary {
  projectId: string;
  created: boolean;
  apps: { platform: string; appId: string; keys: Record<'test' | 'live', { publishable: string; secret: string }> }[];
  operators: { email: string; role: string }[];
}

async function seed(ports: SuitePorts, projectId: string): Promise<SeedSummary> {
  process.env.FIRESTORE_EMULATOR_HOST = `${HOST}:${ports.firestore}`;
  process.env.GCLOUD_PROJECT = projectId;
  process.env.METADATA_SERVER_DETECTION = 'none';
  // Loaded now: the Admin SDK reads FIRESTORE_EMULATOR_HOST when it first connects.
  const [{ db }, { readDemoSpec, seedDemo, seedOperators }] = await Promise.all([import('../../store/firestore'), import('../seed')]);
  const spec = readDemoSpec(DEMO_SPEC);
  const demo = await seedDemo(db(), spec, Date.now());
  const operators = await seedOperators(db(), spec, demo.projectId, Date.now());
  for (const operator of operators) await ensureAuthUser(`${HOST}:${ports.auth}`, projectId, operator.email);
  return { projectId: demo.projectId, created: demo.created, apps: demo.apps, operators };
}

/** Cloud Scheduler's part: calls the worker on its schedule (never two runs of one worker at once). */
function schedule(worker: WorkerName, every: string, functionsHost: string, projectId: string): { stop(): void } {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    triggerWorker(functionsHost, projectId, worker)
      .finally(() => (busy = false))
      .catch((err) => console.error(`could not fire the ${worker} worker: ${(err as Error).message}`));
  }, everyMs(every));
  return { stop: () => clearInterval(timer) };
}

function printSummary(baseUrl: string, summary: SeedSummary): void {
  console.log(`\nTessera emulator suite is serving through Hosting on ${baseUrl}  (try ${baseUrl}/v1/healthz)`);
  console.log(`State: ${summary.created ? 'new demo data' : 'restored from the previous run'}`);
  console.log(`\nDemo project ${summary.projectId}:`);
  for (const app of summary.apps) {
    console.log(`  ${app.platform.padEnd(8)} ${app.appId}`);
    for (const env of ['test', 'live'] as const) {
      console.log(`    ${env}  publishable ${app.keys[env].publishable}`);
      console.log(`          secret      ${app.keys[env].secret}`);
    }
  }
  const emails = summary.operators.map((o) => `${o.email} (${o.role})`).join(', ');
  console.log(`\nDashboard: ${baseUrl}/dashboard/`);
  console.log(`  Sign in with email ${emails}; the Auth emulator's sign-in link is printed here.`);
  console.log('\nScheduled workers: `npm run tessera -- workers run webhooks|retention` fires one now.');
  console.log('Ctrl-C stops everything (data is exported and restored next time; npm run emulators -- --fresh starts clean).');
  console.log('Tessera suite ready.');
}

main().catch((err) => {
  console.error(err instanceof MissingPrerequisite ? err.message : err);
  process.exit(err instanceof MissingPrerequisite ? 2 : 1);
});
