import { DomainError } from '../errors/domain';
import { compareVersions, parseSdkVersion, SDK_VERSIONS, type Surface } from '../sdk/surfaces';

export interface SdkFloorViolation {
  surface: Surface;
  minVersion: string;
  version: string;
}

/**
 * The wire-format floor of `POST /v1/events` (spec: behind a switch, off by default). The SDK is
 * taken from `Service-Sdk-Version`, or from the envelope's `sdk` when the header is absent. An
 * SDK whose surface cannot be told, or that names no parsable version, is let through: the
 * floor refuses only what it knows to be too old.
 */
export function sdkFloorViolation(header: string | undefined, envelopeSdk: { name: string; version: string } | null): SdkFloorViolation | null {
  const sdk = parseSdkVersion(header) ?? (envelopeSdk ? parseSdkVersion(`${envelopeSdk.name}@${envelopeSdk.version}`) : null);
  if (!sdk?.surface) return null;
  const minVersion = SDK_VERSIONS[sdk.surface].minSupported;
  if (compareVersions(sdk.version, minVersion) >= 0) return null;
  return { surface: sdk.surface, minVersion, version: sdk.version };
}

export function sdkVersionUnsupported(violation: SdkFloorViolation): DomainError<'sdk_version_unsupported'> {
  return new DomainError(
    'sdk_version_unsupported',
    `SDK version ${violation.version} is below the supported floor ${violation.minVersion} for ${violation.surface}; keep the events and upgrade the SDK.`,
    { floor: { minVersion: violation.minVersion, surface: violation.surface } },
  );
}
