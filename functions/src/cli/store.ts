import { existsSync, readFileSync } from 'node:fs';
import { LOCAL_GCLOUD_PROJECT, RUNNING_FILE } from '../local/paths';

/**
 * Which store the CLI talks to, in order: an explicit FIRESTORE_EMULATOR_HOST; an explicit
 * Firebase project (GCLOUD_PROJECT / GOOGLE_CLOUD_PROJECT with application-default
 * credentials: production); the locally running stack (.tessera/running.json).
 */
export function configureStore(): { target: string } {
  const local = (): void => {
    process.env.GCLOUD_PROJECT ??= LOCAL_GCLOUD_PROJECT;
    process.env.METADATA_SERVER_DETECTION ??= 'none';
    // As under `npm start`: the local stack delivers to loopback receivers over http.
    process.env.TESSERA_WEBHOOKS_ALLOW_LOOPBACK ??= 'on';
  };
  if (process.env.FIRESTORE_EMULATOR_HOST) {
    local();
    return { target: `emulator ${process.env.FIRESTORE_EMULATOR_HOST}` };
  }
  const project = process.env.GCLOUD_PROJECT || process.env.GOOGLE_CLOUD_PROJECT;
  if (project) return { target: `project ${project}` };
  if (existsSync(RUNNING_FILE)) {
    const running = JSON.parse(readFileSync(RUNNING_FILE, 'utf8')) as { firestoreEmulatorHost: string; gcloudProject: string };
    process.env.FIRESTORE_EMULATOR_HOST = running.firestoreEmulatorHost;
    process.env.GCLOUD_PROJECT = running.gcloudProject;
    local();
    return { target: `local stack (emulator ${running.firestoreEmulatorHost})` };
  }
  throw new Error('No store to talk to: start the local stack (npm start), or set GCLOUD_PROJECT (production) or FIRESTORE_EMULATOR_HOST.');
}
