import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { DEMO_SPEC, EXPORT_DIR, LOCAL_GCLOUD_PROJECT, RUNNING_FILE, STATE_DIR } from '../config/paths';
import { EmulatorMissingError, startEmulator, type RunningEmulator } from './emulator';
import { LocalLogin } from './localLogin';

/**
 * `npm start`: the Firestore emulator, the demo data, and every endpoint group on one port.
 * State is exported to .tessera/ on shutdown and restored on the next start;
 * `--fresh` (or TESSERA_FRESH=1) starts from a clean state.
 */
async function main(): Promise<void> {
  const fresh = process.argv.includes('--fresh') || process.env.TESSERA_FRESH === '1';
  const port = Number(process.env.PORT || 8787);
  process.env.GCLOUD_PROJECT ??= LOCAL_GCLOUD_PROJECT;
  // Locally there is no GCP metadata server to probe.
  process.env.METADATA_SERVER_DETECTION ??= 'none';
  // Local receivers listen on loopback over http (webhooks/destination.ts); off unless set here or by hand.
  process.env.TESSERA_WEBHOOKS_ALLOW_LOOPBACK ??= 'on';
  mkdirSync(STATE_DIR, { recursive: true });
  if (fresh) rmSync(EXPORT_DIR, { recursive: true, force: true });

  let emulator;
  try {
    emulator = await startEmulator({ importFrom: fresh ? undefined : EXPORT_DIR });
  } catch (err) {
    if (err instanceof EmulatorMissingError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  process.env.FIRESTORE_EMULATOR_HOST = emulator.host;
  try {
    await serve(emulator, port, fresh);
  } catch (err) {
    await emulator.stop();
    throw err;
  }
}

async function serve(emulator: RunningEmulator, port: number, fresh: boolean): Promise<void> {
  // Loaded only now: the Admin SDK reads FIRESTORE_EMULATOR_HOST when it first connects.
  const { createDeps } = await import('../app/deps');
  const { ALL_ROUTES } = await import('../app/groups');
  const { createServiceApp } = await import('../app/serviceApp');
  const { readDemoSpec, seedDemo } = await import('./seed');
  const { railStandIns } = await import('../rails/edges');

  const { InProcessTaskQueue } = await import('../tasks/inProcessQueue');
  const { FirestorePendingTaskStore } = await import('../tasks/pendingTasks');
  const { db } = await import('../store/firestore');

  // Tasks waiting for their time (webhook retries) are kept in the local store: a restart runs them.
  const tasks = new InProcessTaskQueue({ pending: new FirestorePendingTaskStore(db()) });
  const deps = createDeps({ tasks });
  const resumed = await tasks.resume();
  const demo = await seedDemo(deps.db, readDemoSpec(DEMO_SPEC), deps.clock.now());
  // Deployed, Cloud Scheduler runs them (app/workers/scheduled.ts); here this process does, on the same schedules.
  const { startLocalSchedules } = await import('./localSchedules');
  const schedules = startLocalSchedules(deps);
  const { withHostingPublic } = await import('./hosting');
  const server = createServer(withHostingPublic(createServiceApp(ALL_ROUTES, deps)));
  const baseUrl = `http://127.0.0.1:${port}`;
  // The dashboard's sign-in links: each signs in once, during this run only; using one prints the next (dashboard/README.md).
  const localLogin = new LocalLogin((next) => console.log(`\nDashboard (one-time sign-in link; the previous one is spent): ${baseUrl}/dashboard/#login=${next}`));
  deps.operators.allowLocalSignIn(localLogin);
  const loginToken = localLogin.loginToken;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  writeFileSync(RUNNING_FILE, JSON.stringify({ baseUrl, firestoreEmulatorHost: emulator.host, gcloudProject: process.env.GCLOUD_PROJECT, pid: process.pid }, null, 2));

  console.log(`\nTessera is serving on ${baseUrl}  (try ${baseUrl}/v1/healthz)`);
  console.log(`Firestore emulator: ${emulator.host}${emulator.owned ? '' : ' (external)'}; state ${fresh ? 'fresh' : demo.created ? 'new' : 'restored from .tessera/'}`);
  if (resumed > 0) console.log(`Background tasks waiting from the last run: ${resumed} (each runs at its time)`);
  console.log(`\nDemo project ${demo.projectId}:`);
  for (const a of demo.apps) {
    console.log(`  ${a.platform.padEnd(8)} ${a.appId}`);
    for (const env of ['test', 'live'] as const) {
      console.log(`    ${env}  publishable ${a.keys[env].publishable}`);
      console.log(`          secret      ${a.keys[env].secret}`);
    }
  }
  console.log(`\nDashboard (one-time sign-in link): ${baseUrl}/dashboard/#login=${loginToken}`);
  for (const standIn of railStandIns(deps.rails)) console.warn(`\n!! Rail stand-in: ${standIn}`);
  console.log('\nCtrl-C stops everything (state is kept; npm start -- --fresh starts clean).');

  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping…`);
    server.close();
    server.closeAllConnections();
    // Within 5 s whatever is queued: running work gets 1.5 s, waiting tasks stay in the store for the next start.
    await Promise.all([schedules.stop(1500), tasks.stop(1500)]);
    try {
      if (emulator.owned) await emulator.exportTo(EXPORT_DIR, process.env.GCLOUD_PROJECT!);
    } catch (err) {
      console.error(`could not export local state: ${(err as Error).message}`);
    }
    await emulator.stop();
    rmSync(RUNNING_FILE, { force: true });
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
