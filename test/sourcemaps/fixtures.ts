import { randomBytes } from 'node:crypto';

/** Source maps and request bodies shared by the source-map suites. */

export const UPLOAD_PATH = '/v1/releases/sourcemaps';

export function base64Json(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
}

/** A small, valid version 3 map: generated line 1 column 0 → src/{name}.ts line 1 column 0. */
export function smallMap(name = 'app', extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { version: 3, file: `${name}.min.js`, sources: [`src/${name}.ts`], names: ['main'], mappings: 'AAAAA', ...extra };
}

/**
 * A valid map whose `sourcesContent` is random base64 text: it barely compresses, so its
 * stored form needs several 1 MiB documents.
 */
export function incompressibleMap(approxBytes: number): Record<string, unknown> {
  return { ...smallMap('vendor'), sourcesContent: [randomBytes(Math.ceil((approxBytes * 3) / 4)).toString('base64')] };
}

export function file(fileUrl: string, map: unknown = smallMap()): { fileUrl: string; sourceMap: string } {
  return { fileUrl, sourceMap: base64Json(map) };
}

export function uploadBody(release: string, environment: string, files: unknown[]): Record<string, unknown> {
  return { release, environment, files };
}
