import type { JSONSchemaType } from 'ajv';
import { ApiError } from '../../http/errors';
import type { AuthContext } from '../../http/route';
import type { WireEnv } from '../../store/env';
import { MAX_FILES_PER_BATCH, RELEASE_PATTERN } from '../limits';

/**
 * Request-level rules of `POST /v1/releases/sourcemaps`, each with the code the spec gives it
 * (`invalid_release`, `missing_required_param`), worded through the schema's annotations
 * (http/validation.ts). The files themselves are checked one by one later, and never fail the
 * request.
 */
export interface UploadRequest {
  release: string;
  environment: WireEnv;
  files: unknown[];
}

const RELEASE_RULE = '`release` must be 1–64 characters: letters, digits, `.`, `_` or `-`.';
const ENVIRONMENT_RULE = 'Invalid value for `environment`: must be one of "production", "sandbox".';
const FILES_REQUIRED = '`files` must contain at least one file.';

export const uploadBodySchema: JSONSchemaType<UploadRequest> = {
  type: 'object',
  required: ['release', 'environment', 'files'],
  properties: {
    release: { type: 'string', pattern: RELEASE_PATTERN.source, 'x-code': 'invalid_release', 'x-message': { type: RELEASE_RULE, pattern: RELEASE_RULE } },
    environment: { type: 'string', enum: ['production', 'sandbox'], 'x-message': { type: ENVIRONMENT_RULE, enum: ENVIRONMENT_RULE } },
    files: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_FILES_PER_BATCH,
      items: {} as JSONSchemaType<unknown>, // each file is checked on its own (uploadService.ts)
      'x-missing-when-empty': true,
      'x-code': { empty: 'missing_required_param', minItems: 'missing_required_param' },
      'x-message': { empty: FILES_REQUIRED, minItems: FILES_REQUIRED },
      'x-invalid': { type: 'must be an array', maxItems: `at most ${MAX_FILES_PER_BATCH} files per request` },
    },
  },
  'x-code': { 'required:release': 'invalid_release', 'required:files': 'missing_required_param' },
  'x-message': { 'required:release': RELEASE_RULE, 'required:environment': ENVIRONMENT_RULE, 'required:files': FILES_REQUIRED },
};

/**
 * The pipeline already refuses a valid environment other than the key's; kept here so the rule
 * holds even if this route is ever mounted elsewhere.
 */
export function requireKeyEnvironment(request: UploadRequest, auth: AuthContext): void {
  if (request.environment !== auth.wireEnv) throw new ApiError('env_mismatch', `This ${auth.wireEnv} key cannot be used for ${request.environment} data.`);
}
