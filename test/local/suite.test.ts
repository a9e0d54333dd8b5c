/**
 * Guarantees of `npm run emulators`' preparation (pure logic and files, no emulator): it picks
 * a Java 21+ runtime over an older one wherever each is, or none (then one line says what to
 * install); it hands firebase-tools Debian's emulators (a manifest-only wrapper jar for the
 * Firestore one, whose jar has no main manifest), unless the developer named binaries or
 * firebase-tools has its own; the run's firebase config keeps firebase.json and changes only
 * the ports and the dashboard's CSP (the Auth emulator); schedules become intervals.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateRawSync, crc32 } from 'node:zlib';
import { firestoreBinary, FIRESTORE_HINT, manifestOnlyJar, MissingPrerequisite, pubsubBinary, PUBSUB_HINT } from '../../functions/src/local/suite/binaries';
import { configuredPorts, readFirebaseJson, suiteConfig } from '../../functions/src/local/suite/config';
import { findJava, JAVA_HINT, parseJavaMajor } from '../../functions/src/local/suite/java';
import { everyMs, triggerWorker } from '../../functions/src/local/suite/schedules';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signInOptions } from '../../functions/src/dashboard/signInOptions';

const scratch = () => mkdtempSync(join(tmpdir(), 'tessera-suite-'));

/** A fake `java` that prints the given version the way `java -version` does (on stderr). */
function fakeJava(dir: string, version: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'java');
  writeFileSync(path, `#!/bin/sh\necho 'openjdk version "${version}" 2025-04-15' >&2\n`);
  chmodSync(path, 0o755);
  return path;
}

describe('finding Java 21+', () => {
  it('reads the major version of both version schemes', () => {
    expect(parseJavaMajor('openjdk version "17.0.15" 2025-04-15')).toBe(17);
    expect(parseJavaMajor('openjdk version "25" 2025-09-16')).toBe(25);
    expect(parseJavaMajor('java version "1.8.0_392"')).toBe(8);
    expect(parseJavaMajor('no java here')).toBeNull();
  });

  it('skips an old java on PATH and in JAVA_HOME for a newer one under the JVM folder', () => {
    const root = scratch();
    fakeJava(join(root, 'path-bin'), '17.0.15');
    fakeJava(join(root, 'home', 'bin'), '11.0.2');
    const jvm = join(root, 'jvm');
    fakeJava(join(jvm, 'java-17-openjdk-amd64', 'bin'), '17.0.15');
    fakeJava(join(jvm, 'temurin-21-jdk-amd64', 'bin'), '21.0.4');
    expect(findJava({ PATH: join(root, 'path-bin'), JAVA_HOME: join(root, 'home') }, jvm)).toEqual({ binDir: join(jvm, 'temurin-21-jdk-amd64', 'bin'), major: 21 });
  });

  it('finds none when every java is older, and then says what to install in one line', () => {
    const root = scratch();
    fakeJava(join(root, 'bin'), '17.0.15');
    expect(findJava({ PATH: join(root, 'bin') }, join(root, 'no-jvm'))).toBeNull();
    expect(JAVA_HINT).not.toContain('\n');
    expect(JAVA_HINT).toMatch(/Java 21\+.*install/);
  });
});

/** The one entry of a zip written by manifestOnlyJar, read back by the format's own rules. */
function readOnlyEntry(zip: Buffer): { name: string; data: Buffer; crcOk: boolean } {
  const end = zip.length - 22;
  expect(zip.readUInt32LE(end)).toBe(0x06054b50);
  expect(zip.readUInt16LE(end + 10)).toBe(1);
  const centralAt = zip.readUInt32LE(end + 16);
  expect(zip.readUInt32LE(centralAt)).toBe(0x02014b50);
  const localAt = zip.readUInt32LE(centralAt + 42);
  expect(zip.readUInt32LE(localAt)).toBe(0x04034b50);
  const method = zip.readUInt16LE(localAt + 8);
  const size = zip.readUInt32LE(localAt + 18);
  const nameLength = zip.readUInt16LE(localAt + 26);
  const name = zip.subarray(localAt + 30, localAt + 30 + nameLength).toString('utf8');
  const raw = zip.subarray(localAt + 30 + nameLength, localAt + 30 + nameLength + size);
  const data = method === 0 ? raw : inflateRawSync(raw);
  return { name, data, crcOk: crc32(data) === zip.readUInt32LE(localAt + 14) };
}

describe('emulator binaries from Debian packages', () => {
  it('writes a valid manifest-only jar whose Main-Class and Class-Path start Debian’s Firestore emulator', () => {
    const dir = scratch();
    const debianJar = join(dir, 'usr', 'lib', 'google-cloud-sdk', 'platform', 'cloud-firestore-emulator', 'cloud-firestore-emulator.jar');
    mkdirSync(join(debianJar, '..'), { recursive: true });
    writeFileSync(debianJar, 'not really a jar');
    const choice = firestoreBinary(join(dir, 'cache'), {}, debianJar, join(dir, 'no-firebase-cache'));
    const wrapper = choice.env.FIRESTORE_EMULATOR_BINARY_PATH;
    expect(wrapper).toBe(join(dir, 'cache', 'cloud-firestore-emulator-debian.jar'));
    const entry = readOnlyEntry(readFileSync(wrapper));
    expect(entry.name).toBe('META-INF/MANIFEST.MF');
    expect(entry.crcOk).toBe(true);
    // Manifest continuation lines (72-byte limit) joined back.
    const manifest = entry.data.toString('utf8').replace(/\r\n /g, '');
    expect(manifest).toContain('Manifest-Version: 1.0\r\n');
    expect(manifest).toContain('Main-Class: com.google.cloud.datastore.emulator.firestore.CloudFirestore\r\n');
    expect(manifest).toContain(`Class-Path: file://${debianJar}\r\n`);
    for (const line of entry.data.toString('utf8').split('\r\n')) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(72);
  });

  it('is the same bytes for the same manifest (no rewrite on every start)', () => {
    expect(manifestOnlyJar({ 'Main-Class': 'a.B' }).equals(manifestOnlyJar({ 'Main-Class': 'a.B' }))).toBe(true);
  });

  it('leaves the developer’s own binary paths and firebase-tools’ downloads alone', () => {
    const dir = scratch();
    expect(firestoreBinary(join(dir, 'cache'), { FIRESTORE_EMULATOR_BINARY_PATH: '/opt/mine.jar' }, '/nowhere', '/nowhere').env).toEqual({ FIRESTORE_EMULATOR_BINARY_PATH: '/opt/mine.jar' });
    expect(pubsubBinary({ PUBSUB_EMULATOR_BINARY_PATH: '/opt/pubsub' }, '/nowhere', '/nowhere').env).toEqual({ PUBSUB_EMULATOR_BINARY_PATH: '/opt/pubsub' });
    const cache = join(dir, 'firebase-cache');
    mkdirSync(join(cache, 'pubsub-emulator-0.8.14'), { recursive: true });
    writeFileSync(join(cache, 'cloud-firestore-emulator-v1.19.7.jar'), '');
    expect(firestoreBinary(join(dir, 'cache'), {}, '/nowhere', cache).env).toEqual({});
    expect(pubsubBinary({}, '/nowhere', cache).env).toEqual({});
  });

  it('says in one line what to install when a package is missing', () => {
    const dir = scratch();
    expect(() => firestoreBinary(join(dir, 'cache'), {}, join(dir, 'missing.jar'), join(dir, 'none'))).toThrow(new MissingPrerequisite(FIRESTORE_HINT));
    expect(() => pubsubBinary({}, join(dir, 'missing'), join(dir, 'none'))).toThrow(new MissingPrerequisite(PUBSUB_HINT));
    expect(FIRESTORE_HINT).toContain('apt-get install google-cloud-cli-firestore-emulator');
    expect(PUBSUB_HINT).toContain('apt-get install google-cloud-cli-pubsub-emulator');
  });
});

describe('the run’s firebase config', () => {
  const base = readFirebaseJson(join(__dirname, '..', '..', 'firebase.json'));

  it('declares a fixed port for every emulator the suite starts, with the UI off (it would need a download)', () => {
    expect(configuredPorts(base)).toMatchObject({ hosting: 5000, functions: 5001, firestore: 8080, auth: 9099, pubsub: 8085, tasks: 9499 });
    expect((base.emulators?.ui as { enabled: boolean }).enabled).toBe(false);
  });

  it('changes only the ports and the dashboard CSP’s connect-src (the Auth emulator), nothing of firebase.json itself', () => {
    const before = JSON.stringify(base);
    const ports = { hosting: 1, functions: 2, firestore: 3, tasks: 4, auth: 5, pubsub: 6, hub: 7, logging: 8, eventarc: 9, firestoreWebsocket: 10 };
    const config = suiteConfig(base, ports);
    expect(JSON.stringify(base)).toBe(before);
    expect(configuredPorts(config)).toEqual(ports);
    expect(config.functions).toEqual(base.functions);
    expect(JSON.stringify((config.hosting as { rewrites: unknown }).rewrites)).toBe(JSON.stringify((base.hosting as { rewrites: unknown }).rewrites));
    const cspOf = (firebase: typeof base, source: string) => firebase.hosting!.headers!.find((h) => h.source === source)!.headers.find((h) => h.key === 'Content-Security-Policy')!.value;
    expect(cspOf(config, '/dashboard/**')).toMatch(/connect-src 'self' https:\/\/identitytoolkit\.googleapis\.com https:\/\/securetoken\.googleapis\.com http:\/\/127\.0\.0\.1:5;/);
    expect(cspOf(base, '/dashboard/**')).not.toContain('127.0.0.1'); // the deployed page never talks to a local host
    // The API reference talks to no one: its policy has no connect-src to widen.
    expect(cspOf(config, '/reference/**')).toBe(cspOf(base, '/reference/**'));
  });
});

describe('schedules and workers', () => {
  it('turns the schedules index.ts uses into intervals and refuses others', () => {
    expect(everyMs('every 1 minutes')).toBe(60_000);
    expect(everyMs('every 60 minutes')).toBe(3_600_000);
    expect(everyMs('every 2 hours')).toBe(7_200_000);
    expect(() => everyMs('0 3 * * *')).toThrow(/unsupported schedule/);
  });

  it('calls a worker as Cloud Scheduler does, at the emulator’s current generation of the function', async () => {
    const calls: { path: string; job: string | undefined }[] = [];
    const emulator = createServer((req, res) => {
      calls.push({ path: req.url!, job: req.headers['x-cloudscheduler-jobname'] as string | undefined });
      if (req.url!.endsWith('/us-central1-retentionWorker-1')) return res.writeHead(200).end();
      res.writeHead(404).end('Function tessera-list-functions does not exist, valid functions are: us-central1-platformApi, us-central1-retentionWorker-0, us-central1-retentionWorker-1, us-central1-webhookWorker-1');
    });
    await new Promise<void>((resolve) => emulator.listen(0, '127.0.0.1', resolve));
    const host = `127.0.0.1:${(emulator.address() as AddressInfo).port}`;
    try {
      expect(await triggerWorker(host, 'demo-x', 'retention')).toEqual({ function: 'us-central1-retentionWorker-1', status: 200 });
      expect(calls[1]).toEqual({ path: '/functions/projects/demo-x/triggers/us-central1-retentionWorker-1', job: 'firebase-schedule-retentionWorker-us-central1' });
      // The webhook worker exists but fails: the failure is reported, not swallowed.
      await expect(triggerWorker(host, 'demo-x', 'webhooks')).rejects.toThrow(/webhookWorker failed under the functions emulator \(HTTP 404\)/);
    } finally {
      await new Promise((resolve) => emulator.close(resolve));
    }
  });
});

describe('where the dashboard signs in', () => {
  it('points the page at the Auth emulator only inside the functions emulator', () => {
    expect(signInOptions({ FUNCTIONS_EMULATOR: 'true', FIREBASE_AUTH_EMULATOR_HOST: '127.0.0.1:9099' })).toEqual({ authEmulator: 'http://127.0.0.1:9099' });
    // A deployed function (no FUNCTIONS_EMULATOR) never sends operators to some other host, even if the variable leaked in.
    expect(signInOptions({ FIREBASE_AUTH_EMULATOR_HOST: '127.0.0.1:9099', K_SERVICE: 'dashboardApi' })).toEqual({ authEmulator: null });
    expect(signInOptions({ FUNCTIONS_EMULATOR: 'true' })).toEqual({ authEmulator: null });
    expect(signInOptions({ FUNCTIONS_EMULATOR: 'true', FIREBASE_AUTH_EMULATOR_HOST: 'evil.example/"><script>' })).toEqual({ authEmulator: null });
  });
});
