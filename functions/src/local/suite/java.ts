import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

/**
 * firebase-tools' emulators need Java 21 or newer; Debian's default `java` is 17. This finds a
 * Java 21+ runtime (JAVA_HOME, `java` on PATH, then every JDK/JRE under /usr/lib/jvm) so the
 * suite can put it first on firebase-tools' PATH.
 */
export const MIN_JAVA = 21;
export const JAVA_HINT = `Java ${MIN_JAVA}+ not found (checked JAVA_HOME, PATH and /usr/lib/jvm): install one, e.g. apt-get install openjdk-${MIN_JAVA}-jre-headless, or set JAVA_HOME.`;

export interface JavaRuntime {
  /** The folder holding `java`, to put first on PATH. */
  binDir: string;
  major: number;
}

/** `java -version` prints `openjdk version "17.0.15"` or `"1.8.0_392"` (old scheme) on stderr. */
export function parseJavaMajor(versionOutput: string): number | null {
  const match = /version "(\d+)(?:\.(\d+))?/.exec(versionOutput);
  if (!match) return null;
  const first = Number(match[1]);
  return first === 1 && match[2] !== undefined ? Number(match[2]) : first;
}

export function javaCandidates(environment: Record<string, string | undefined> = process.env, jvmRoot = '/usr/lib/jvm'): string[] {
  const candidates: string[] = [];
  if (environment.JAVA_HOME) candidates.push(join(environment.JAVA_HOME, 'bin', 'java'));
  for (const dir of (environment.PATH ?? '').split(delimiter).filter(Boolean)) candidates.push(join(dir, 'java'));
  if (existsSync(jvmRoot)) {
    // Newest first by name (temurin-25-…, java-21-openjdk-…); versions are checked below anyway.
    for (const entry of readdirSync(jvmRoot).sort().reverse()) candidates.push(join(jvmRoot, entry, 'bin', 'java'));
  }
  return [...new Set(candidates)];
}

export function findJava(environment: Record<string, string | undefined> = process.env, jvmRoot = '/usr/lib/jvm'): JavaRuntime | null {
  for (const candidate of javaCandidates(environment, jvmRoot)) {
    if (!existsSync(candidate)) continue;
    const result = spawnSync(candidate, ['-version'], { encoding: 'utf8', timeout: 20_000 });
    const major = parseJavaMajor(`${result.stderr ?? ''}${result.stdout ?? ''}`);
    if (major !== null && major >= MIN_JAVA) return { binDir: dirname(candidate), major };
  }
  return null;
}
