import type { FromSchema } from 'json-schema-to-ts';
import { RELEASE } from '../ids';
import { wireEnvSchema } from './common';

/**
 * `POST /v1/releases/sourcemaps`. Request-level rules carry the codes the spec gives them
 * (`invalid_release`, `missing_required_param`), worded through annotations; the files are
 * checked one by one later and never fail the request.
 */
export const MAX_FILES_PER_BATCH = 100;

const RELEASE_RULE = '`release` must be 1–64 characters: letters, digits, `.`, `_` or `-`.';
const ENVIRONMENT_RULE = 'Invalid value for `environment`: must be one of "production", "sandbox".';
const FILES_REQUIRED = '`files` must contain at least one file.';

export const uploadBodySchema = {
  type: 'object',
  required: ['release', 'environment', 'files'],
  properties: {
    release: { ...RELEASE.schema, 'x-code': 'invalid_release', 'x-message': { type: RELEASE_RULE, pattern: RELEASE_RULE } },
    environment: { ...wireEnvSchema, 'x-message': { type: ENVIRONMENT_RULE, enum: ENVIRONMENT_RULE } },
    files: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_FILES_PER_BATCH,
      items: {}, // each file is checked on its own (sourcemaps/uploadService.ts)
      'x-missing-when-empty': true,
      'x-code': { empty: 'missing_required_param', minItems: 'missing_required_param' },
      'x-message': { empty: FILES_REQUIRED, minItems: FILES_REQUIRED },
      'x-invalid': { type: 'must be an array', maxItems: `at most ${MAX_FILES_PER_BATCH} files per request` },
    },
  },
  'x-code': { 'required:release': 'invalid_release', 'required:files': 'missing_required_param' },
  'x-message': { 'required:release': RELEASE_RULE, 'required:environment': ENVIRONMENT_RULE, 'required:files': FILES_REQUIRED },
} as const;
export type UploadBody = FromSchema<typeof uploadBodySchema>;

const fileErrorSchema = {
  type: 'object',
  required: ['code', 'message'],
  additionalProperties: false,
  properties: { code: { type: 'string', enum: ['invalid_runtime_url', 'missing_sourcemap', 'invalid_sourcemap', 'sourcemap_too_large'] }, message: { type: 'string' } },
} as const;

const fileErrorRowSchema = {
  type: 'object',
  required: ['fileUrl', 'status', 'error'],
  additionalProperties: false,
  properties: { fileUrl: { type: ['string', 'null'] }, status: { const: 'error' }, error: fileErrorSchema },
} as const;
export type FileErrorRow = FromSchema<typeof fileErrorRowSchema>;

/** One file's outcome; `fileUrlHash` is the server's SHA-256 hex of `fileUrl` (null when the URL was rejected). */
const fileResultRowSchema = {
  type: 'object',
  required: ['fileUrl', 'fileUrlHash', 'status'],
  additionalProperties: false,
  properties: {
    fileUrl: { type: ['string', 'null'] },
    fileUrlHash: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['uploaded', 'skipped', 'error'] },
    error: fileErrorSchema,
  },
} as const;
export type FileResultRow = FromSchema<typeof fileResultRowSchema>;

export const sourcemapBatchResponseSchema = {
  type: 'object',
  required: ['object', 'release', 'environment', 'uploaded', 'skipped', 'errors', 'results'],
  additionalProperties: false,
  properties: {
    object: { const: 'sourcemap_batch' },
    release: RELEASE.schema,
    environment: wireEnvSchema,
    uploaded: { type: 'integer', minimum: 0 },
    skipped: { type: 'integer', minimum: 0 },
    errors: { type: 'array', items: fileErrorRowSchema },
    results: { type: 'array', items: fileResultRowSchema },
  },
} as const;
export type SourcemapBatchResponse = FromSchema<typeof sourcemapBatchResponseSchema>;
