import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';

/**
 * The emulator binaries firebase-tools would download (it cannot here: no internet), taken from
 * the installed Debian packages instead and handed over through its `*_EMULATOR_BINARY_PATH`
 * overrides. An override the developer set, or a jar firebase-tools already downloaded, wins.
 */
const SDK_ROOT = '/usr/lib/google-cloud-sdk';
export const DEBIAN_FIRESTORE_JAR = join(SDK_ROOT, 'platform', 'cloud-firestore-emulator', 'cloud-firestore-emulator.jar');
export const DEBIAN_PUBSUB_LAUNCHER = join(SDK_ROOT, 'platform', 'pubsub-emulator', 'bin', 'cloud-pubsub-emulator');
const FIRESTORE_MAIN_CLASS = 'com.google.cloud.datastore.emulator.firestore.CloudFirestore';
const FIREBASE_CACHE = join(homedir(), '.cache', 'firebase', 'emulators');

export const FIRESTORE_HINT = 'No Firestore emulator for firebase-tools: apt-get install google-cloud-cli-firestore-emulator (or, online, npx firebase setup:emulators:firestore).';
export const PUBSUB_HINT = 'No Pub/Sub emulator for firebase-tools: apt-get install google-cloud-cli-pubsub-emulator (or, online, npx firebase setup:emulators:pubsub).';

export interface BinaryChoice {
  /** Environment to give firebase-tools (empty when it finds its own binary). */
  env: Record<string, string>;
  /** Where the binary comes from, for the start-up summary. */
  source: string;
}

export class MissingPrerequisite extends Error {}

function cached(cacheDir: string, pattern: RegExp): string | null {
  if (!existsSync(cacheDir)) return null;
  return readdirSync(cacheDir).find((entry) => pattern.test(entry)) ?? null;
}

/**
 * firebase-tools runs FIRESTORE_EMULATOR_BINARY_PATH as `java -jar <path>`. Debian's jar has no
 * main manifest, so a manifest-only jar (Main-Class + Class-Path to Debian's jar) stands in.
 */
export function firestoreBinary(cacheDir: string, environment: Record<string, string | undefined> = process.env, debianJar = DEBIAN_FIRESTORE_JAR, firebaseCache = FIREBASE_CACHE): BinaryChoice {
  const explicit = environment.FIRESTORE_EMULATOR_BINARY_PATH;
  if (explicit) return { env: { FIRESTORE_EMULATOR_BINARY_PATH: explicit }, source: explicit };
  const downloaded = cached(firebaseCache, /^cloud-firestore-emulator-v[\d.]+\.jar$/);
  if (downloaded) return { env: {}, source: `firebase-tools cache (${downloaded})` };
  if (!existsSync(debianJar)) throw new MissingPrerequisite(FIRESTORE_HINT);
  const wrapper = join(cacheDir, 'cloud-firestore-emulator-debian.jar');
  const jar = manifestOnlyJar({ 'Main-Class': FIRESTORE_MAIN_CLASS, 'Class-Path': `file://${debianJar}` });
  mkdirSync(cacheDir, { recursive: true });
  if (!existsSync(wrapper) || !readFileSync(wrapper).equals(jar)) writeFileSync(wrapper, jar);
  return { env: { FIRESTORE_EMULATOR_BINARY_PATH: wrapper }, source: `${debianJar} (via ${wrapper})` };
}

export function pubsubBinary(environment: Record<string, string | undefined> = process.env, debianLauncher = DEBIAN_PUBSUB_LAUNCHER, firebaseCache = FIREBASE_CACHE): BinaryChoice {
  const explicit = environment.PUBSUB_EMULATOR_BINARY_PATH;
  if (explicit) return { env: { PUBSUB_EMULATOR_BINARY_PATH: explicit }, source: explicit };
  const downloaded = cached(firebaseCache, /^pubsub-emulator-[\d.]+$/);
  if (downloaded) return { env: {}, source: `firebase-tools cache (${downloaded})` };
  if (!existsSync(debianLauncher)) throw new MissingPrerequisite(PUBSUB_HINT);
  return { env: { PUBSUB_EMULATOR_BINARY_PATH: debianLauncher }, source: debianLauncher };
}

/**
 * A jar holding only META-INF/MANIFEST.MF: a zip with one stored (uncompressed) entry, written
 * by hand so no JDK `jar` tool is needed. Fixed timestamp: the same manifest gives the same bytes.
 */
export function manifestOnlyJar(attributes: Record<string, string>): Buffer {
  const manifest = Buffer.from(`Manifest-Version: 1.0\r\n${Object.entries(attributes).map(([k, v]) => manifestLine(`${k}: ${v}`)).join('')}\r\n`, 'utf8');
  const name = Buffer.from('META-INF/MANIFEST.MF', 'utf8');
  const checksum = crc32(manifest);
  const DOS_TIME = 0;
  const DOS_DATE = (1 << 5) | 1; // 1980-01-01
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(10, 4); // version needed
  local.writeUInt16LE(0x0800, 6); // UTF-8 names
  local.writeUInt16LE(0, 8); // stored
  local.writeUInt16LE(DOS_TIME, 10);
  local.writeUInt16LE(DOS_DATE, 12);
  local.writeUInt32LE(checksum, 14);
  local.writeUInt32LE(manifest.length, 18);
  local.writeUInt32LE(manifest.length, 22);
  local.writeUInt16LE(name.length, 26);
  local.writeUInt16LE(0, 28);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4); // version made by
  central.writeUInt16LE(10, 6);
  central.writeUInt16LE(0x0800, 8);
  central.writeUInt16LE(0, 10);
  central.writeUInt16LE(DOS_TIME, 12);
  central.writeUInt16LE(DOS_DATE, 14);
  central.writeUInt32LE(checksum, 16);
  central.writeUInt32LE(manifest.length, 20);
  central.writeUInt32LE(manifest.length, 24);
  central.writeUInt16LE(name.length, 28);
  // extra, comment, disk, internal attributes, external attributes, local header offset: all 0
  const localSize = local.length + name.length + manifest.length;
  const centralSize = central.length + name.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(localSize, 16);
  return Buffer.concat([local, name, manifest, central, name, end]);
}

/** Manifest lines are at most 72 bytes; longer ones continue on lines starting with a space. */
function manifestLine(line: string): string {
  const bytes = Buffer.from(line, 'utf8');
  if (bytes.length <= 72) return `${line}\r\n`;
  const parts: string[] = [bytes.subarray(0, 72).toString('utf8')];
  for (let at = 72; at < bytes.length; at += 71) parts.push(` ${bytes.subarray(at, at + 71).toString('utf8')}`);
  return `${parts.join('\r\n')}\r\n`;
}
