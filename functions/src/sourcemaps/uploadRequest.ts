import { ApiError } from '../http/errors';
import type { AuthContext } from '../http/route';
import { isWireEnv, type WireEnv } from '../store/env';
import { MAX_FILES_PER_BATCH, RELEASE_PATTERN } from './limits';

/**
 * Request-level rules of `POST /v1/releases/sourcemaps`, each with the code the spec gives it
 * (which a generic schema failure could not: `invalid_release`, `missing_required_param`).
 * The files themselves are checked one by one later, and never fail the request.
 */
export interface UploadRequest {
  release: string;
  environment: WireEnv;
  files: unknown[];
}

/** The route's own schema only asks for a JSON object; the field rules follow here. */
export const uploadBodySchema = { type: 'object' } as const;

export function parseUploadRequest(body: Record<string, unknown>, auth: AuthContext): UploadRequest {
  const { release, environment, files } = body;
  if (typeof release !== 'string' || !RELEASE_PATTERN.test(release)) {
    throw new ApiError('invalid_release', '`release` must be 1–64 characters: letters, digits, `.`, `_` or `-`.');
  }
  if (!isWireEnv(environment)) {
    throw new ApiError('invalid_param_value', 'Invalid value for `environment`: must be one of "production", "sandbox".');
  }
  // The pipeline already refuses a valid environment other than the key's; kept here so the
  // rule holds even if this route is ever mounted elsewhere.
  if (environment !== auth.wireEnv) throw new ApiError('env_mismatch', `This ${auth.wireEnv} key cannot be used for ${environment} data.`);
  if (files === undefined || files === null || (Array.isArray(files) && files.length === 0)) {
    throw new ApiError('missing_required_param', '`files` must contain at least one file.');
  }
  if (!Array.isArray(files)) throw new ApiError('invalid_param_value', 'Invalid value for `files`: must be an array.');
  if (files.length > MAX_FILES_PER_BATCH) {
    throw new ApiError('invalid_param_value', `Invalid value for \`files\`: at most ${MAX_FILES_PER_BATCH} files per request (got ${files.length}).`);
  }
  return { release, environment, files };
}
