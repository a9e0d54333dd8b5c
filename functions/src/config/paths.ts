import { join, resolve } from 'node:path';

/** Repository-relative locations the local runner, CLI and tests share. */
export const REPO_ROOT = resolve(__dirname, '..', '..', '..');
export const DEMO_SPEC = join(REPO_ROOT, 'emulator-data', 'demo.json');
/** Git-ignored local state: the emulator export and the running stack's address. */
export const STATE_DIR = join(REPO_ROOT, '.tessera');
export const EXPORT_DIR = join(STATE_DIR, 'firestore-export');
/** `TESSERA_RUNNING_FILE` moves it (the browser tests' stack must not replace a developer's). */
export const RUNNING_FILE = process.env.TESSERA_RUNNING_FILE || join(STATE_DIR, 'running.json');
/** Firebase project id used against the emulator (from .firebaserc). */
export const LOCAL_GCLOUD_PROJECT = 'demo-tessera';
