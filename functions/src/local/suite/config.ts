import { readFileSync } from 'node:fs';
import { freePort } from '../emulator';

/**
 * The suite's firebase-tools configuration: the project's firebase.json with the emulators'
 * ports chosen for this run (the fixed defaults of firebase.json, or free ports so the
 * end-to-end tests never clash with a developer's running suite), and the dashboard's
 * Content-Security-Policy widened to the Auth emulator it signs in with locally.
 */
export const SUITE_EMULATORS = ['functions', 'firestore', 'hosting', 'tasks', 'auth', 'pubsub'] as const;
export type SuiteEmulator = (typeof SUITE_EMULATORS)[number];
/** Ports firebase-tools also opens: the hub, the logging stream, Eventarc (started with functions), the Firestore UI websocket. */
export type SuitePortName = SuiteEmulator | 'hub' | 'logging' | 'eventarc' | 'firestoreWebsocket';
export type SuitePorts = Record<SuitePortName, number>;

const PORT_NAMES: SuitePortName[] = [...SUITE_EMULATORS, 'hub', 'logging', 'eventarc', 'firestoreWebsocket'];

interface EmulatorEntry {
  host?: string;
  port?: number;
  websocketPort?: number;
  enabled?: boolean;
}
type FirebaseJson = {
  emulators?: Record<string, EmulatorEntry | boolean | undefined>;
  hosting?: { headers?: { source: string; headers: { key: string; value: string }[] }[] };
} & Record<string, unknown>;

export function readFirebaseJson(path: string): FirebaseJson {
  return JSON.parse(readFileSync(path, 'utf8')) as FirebaseJson;
}

/** The fixed ports firebase.json declares (what `npm run emulators` uses). */
export function configuredPorts(config: FirebaseJson): SuitePorts {
  const entry = (name: string): EmulatorEntry => (config.emulators?.[name] as EmulatorEntry | undefined) ?? {};
  const ports = {} as SuitePorts;
  for (const name of PORT_NAMES) {
    const port = name === 'firestoreWebsocket' ? entry('firestore').websocketPort : entry(name).port;
    if (typeof port !== 'number') throw new Error(`firebase.json declares no port for the ${name} emulator`);
    ports[name] = port;
  }
  return ports;
}

export async function freePorts(): Promise<SuitePorts> {
  const ports = {} as SuitePorts;
  const taken = new Set<number>();
  for (const name of PORT_NAMES) {
    let port = await freePort();
    while (taken.has(port)) port = await freePort();
    taken.add(port);
    ports[name] = port;
  }
  return ports;
}

export const HOST = '127.0.0.1';

/** firebase.json for this run: same functions, hosting and rules; these ports; CSP allowing the Auth emulator. */
export function suiteConfig(base: FirebaseJson, ports: SuitePorts): FirebaseJson {
  const config = structuredClone(base);
  const emulators: Record<string, unknown> = { ...(config.emulators ?? {}) };
  for (const name of PORT_NAMES) {
    if (name === 'firestoreWebsocket') continue;
    emulators[name] = { ...((emulators[name] as object | undefined) ?? {}), host: HOST, port: ports[name] };
  }
  emulators.firestore = { ...(emulators.firestore as object), websocketPort: ports.firestoreWebsocket };
  emulators.ui = { enabled: false };
  config.emulators = emulators as FirebaseJson['emulators'];
  const authOrigin = `http://${HOST}:${ports.auth}`;
  for (const block of config.hosting?.headers ?? []) {
    for (const header of block.headers) {
      if (header.key.toLowerCase() === 'content-security-policy') header.value = header.value.replace(/connect-src ([^;]*)/, (_all, sources: string) => `connect-src ${sources} ${authOrigin}`);
    }
  }
  return config;
}
