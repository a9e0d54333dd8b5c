import { ApiError } from './errors';
import { originAllowed } from '../keys/origins';
import type { KeyRecord } from '../keys/record';

export interface LockInput {
  origin: string | undefined;
  bundleId: string | undefined;
  packageName: string | undefined;
  /** Heartbeat only: an empty web allowlist is let through so that it can learn its first origin. */
  allowEmptyWebAllowlist: boolean;
}

/**
 * Platform identity lock for publishable keys (Authentication › Platform identity locks).
 * Secret keys skip it entirely. Every check fails closed.
 */
export function platformLockError(record: KeyRecord, input: LockInput): ApiError | null {
  if (record.kind !== 'publishable') return null;
  switch (record.platform) {
    case 'web': {
      if (record.allowedOrigins.length === 0) {
        if (input.allowEmptyWebAllowlist) return null;
        return new ApiError('origin_not_allowed', 'This web key has no allowed origins yet; add one, or send a heartbeat from your site first.');
      }
      if (!input.origin || !originAllowed(input.origin, record.allowedOrigins)) {
        return new ApiError('origin_not_allowed', `Origin ${input.origin ? `'${input.origin}'` : '(none)'} is not allowed for this key.`);
      }
      return null;
    }
    case 'ios':
      if (!record.bundleId || input.bundleId !== record.bundleId) {
        return new ApiError('bundle_id_not_allowed', 'X-Service-Bundle-Id does not match the bundle id locked to this key.');
      }
      return null;
    case 'android':
      if (!record.packageName || input.packageName !== record.packageName) {
        return new ApiError('package_name_not_allowed', 'X-Service-Package-Name does not match the package name locked to this key.');
      }
      return null;
  }
}
