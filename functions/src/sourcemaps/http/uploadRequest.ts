import { ApiError } from '../../http/errors';
import type { AuthContext } from '../../http/route';
import type { UploadBody } from '../../wire/sourcemaps';

/**
 * The pipeline already refuses a valid environment other than the key's; kept here so the rule
 * holds even if this route is ever mounted elsewhere.
 */
export function requireKeyEnvironment(request: UploadBody, auth: AuthContext): void {
  if (request.environment !== auth.wireEnv) throw new ApiError('env_mismatch', `This ${auth.wireEnv} key cannot be used for ${request.environment} data.`);
}
