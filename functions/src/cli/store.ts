import { existsSync, readFileSync } from 'node:fs';
import { LOCAL_GCLOUD_PROJECT, RUNNING_FILE } from '../config/paths';
import { OperatorError } from './operatorError';

/**
 * Which store the CLI changes, decided before any command runs, in order:
 * 1. `--firebase-project ID`: that Firebase project's Firestore (production), with
 *    application-default credentials. The only way to reach production: an ambient
 *    GCLOUD_PROJECT / GOOGLE_CLOUD_PROJECT alone is refused (a shell left pointing at production
 *    must never be changed by a command meant for the local stack).
 * 2. FIRESTORE_EMULATOR_HOST: that emulator.
 * 3. The running local stack (`npm start` writes .tessera/running.json).
 * Anything else is a usage error (exit 2) saying what to do.
 */
export interface StoreTarget {
  kind: 'production' | 'emulator' | 'local';
  /** For a person: `Firebase project my-prod (production)`, `emulator 127.0.0.1:8080`, … */
  description: string;
}

export function configureStore(options: { firebaseProject?: string } = {}): StoreTarget {
  const local = (): void => {
    process.env.GCLOUD_PROJECT ??= LOCAL_GCLOUD_PROJECT;
    process.env.METADATA_SERVER_DETECTION ??= 'none';
    // As under `npm start`: the local stack delivers to loopback receivers over http.
    process.env.TESSERA_WEBHOOKS_ALLOW_LOOPBACK ??= 'on';
  };
  const explicit = options.firebaseProject;
  if (explicit !== undefined) {
    if (!/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/.test(explicit)) throw new OperatorError('invalid_argument', `--firebase-project must be a Firebase project id (6–30 lowercase letters, digits or -), got '${explicit}'.`);
    if (process.env.FIRESTORE_EMULATOR_HOST) {
      throw new OperatorError('invalid_argument', `--firebase-project ${explicit} names a production project but FIRESTORE_EMULATOR_HOST is set: unset it to change production, or drop --firebase-project to use the emulator.`);
    }
    process.env.GCLOUD_PROJECT = explicit;
    process.env.GOOGLE_CLOUD_PROJECT = explicit;
    return { kind: 'production', description: `Firebase project ${explicit} (production)` };
  }
  if (process.env.FIRESTORE_EMULATOR_HOST) {
    local();
    return { kind: 'emulator', description: `emulator ${process.env.FIRESTORE_EMULATOR_HOST} (project ${process.env.GCLOUD_PROJECT})` };
  }
  const ambient = process.env.GCLOUD_PROJECT || process.env.GOOGLE_CLOUD_PROJECT;
  if (ambient) {
    throw new OperatorError(
      'invalid_argument',
      `GOOGLE_CLOUD_PROJECT/GCLOUD_PROJECT is ${ambient}, but the CLI changes a production project only when named: pass --firebase-project ${ambient} (or unset it to use the local stack).`,
    );
  }
  if (existsSync(RUNNING_FILE)) {
    const running = JSON.parse(readFileSync(RUNNING_FILE, 'utf8')) as { firestoreEmulatorHost: string; gcloudProject: string };
    process.env.FIRESTORE_EMULATOR_HOST = running.firestoreEmulatorHost;
    process.env.GCLOUD_PROJECT = running.gcloudProject;
    local();
    return { kind: 'local', description: `local stack (emulator ${running.firestoreEmulatorHost})` };
  }
  throw new OperatorError('invalid_argument', 'No store to talk to: start the local stack (npm start), set FIRESTORE_EMULATOR_HOST, or pass --firebase-project ID for a production project.');
}
