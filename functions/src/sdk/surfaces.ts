import type { Platform } from '../wire/vocabulary';

/**
 * SDK surfaces and their published versions. `latest` is the newest published artifact;
 * `minSupported` is the wire-format floor that a `426` names. Update on each SDK release.
 */
export const SURFACES = ['web', 'node', 'swift', 'react-native'] as const;
export type Surface = (typeof SURFACES)[number];

export interface SurfaceVersions {
  name: string;
  latest: string;
  minSupported: string;
}

export const SDK_VERSIONS: Record<Surface, SurfaceVersions> = {
  web: { name: '@tessera/web', latest: '2.4.0', minSupported: '2.0.0' },
  node: { name: '@tessera/node', latest: '2.3.1', minSupported: '2.0.0' },
  swift: { name: 'TesseraSwift', latest: '1.9.0', minSupported: '1.6.0' },
  'react-native': { name: '@tessera/react-native', latest: '1.5.2', minSupported: '1.2.0' },
};

/** The SDK surface a key's platform implies when the request names no SDK. */
export const DEFAULT_SURFACE: Record<Platform, Surface> = { web: 'web', ios: 'swift', android: 'react-native' };

export interface SdkVersionHeader {
  name: string;
  version: string;
  surface: Surface | null;
}

/** Parses `Service-Sdk-Version: <name>@<version>` (names may be scoped: `@tessera/web@2.4.0`). */
export function parseSdkVersion(header: string | undefined): SdkVersionHeader | null {
  if (!header) return null;
  const at = header.lastIndexOf('@');
  if (at <= 0 || at === header.length - 1) return null;
  const name = header.slice(0, at).trim();
  const version = header.slice(at + 1).trim();
  if (!/^\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$/.test(version)) return null;
  const surface = SURFACES.find((s) => SDK_VERSIONS[s].name === name) ?? surfaceFromName(name);
  return { name, version, surface };
}

function surfaceFromName(name: string): Surface | null {
  const lower = name.toLowerCase();
  if (lower.includes('react-native')) return 'react-native';
  if (lower.includes('swift') || lower.includes('ios')) return 'swift';
  if (lower.includes('node')) return 'node';
  if (lower.includes('web') || lower.includes('js')) return 'web';
  return null;
}

/** Semantic-version comparison of `major.minor.patch` (pre-release tags ignored). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[-+]/)[0].split('.').map(Number);
  const pb = b.split(/[-+]/)[0].split('.').map(Number);
  for (let i = 0; i < 3; i += 1) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}
