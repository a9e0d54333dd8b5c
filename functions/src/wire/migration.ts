import type { FromSchema } from 'json-schema-to-ts';
import { unixTimeSchema, wireEnvSchema } from './common';

/** `POST /v1/migration/users`: 1–1,000 rows; rows are checked one by one (a bad row is reported, not the request). */
export const MAX_MIGRATION_ROWS = 1000;

const USERS_REQUIRED = '`users` is required: an array of 1 to 1000 rows.';

export const migrationBodySchema = {
  type: 'object',
  required: ['users'],
  properties: {
    users: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_MIGRATION_ROWS,
      items: {},
      'x-missing-when-empty': true,
      'x-code': { empty: 'missing_required_param', minItems: 'missing_required_param' },
      'x-message': { empty: USERS_REQUIRED, minItems: USERS_REQUIRED },
      'x-invalid': { type: `must be an array of 1 to ${MAX_MIGRATION_ROWS} rows`, maxItems: `at most ${MAX_MIGRATION_ROWS} rows per request` },
    },
  },
  'x-code': { required: 'missing_required_param' },
  'x-message': { required: USERS_REQUIRED },
} as const;
export type MigrationBody = FromSchema<typeof migrationBodySchema>;

const count = { type: 'integer', minimum: 0 } as const;

/** `details`: the conflicting rows (never auto-merged) and the refused or failed ones. */
const migrationDetailsSchema = {
  type: 'object',
  required: ['conflicts', 'errors'],
  additionalProperties: false,
  properties: {
    conflicts: {
      type: 'array',
      items: {
        type: 'object',
        required: ['developerUserId', 'railResolutions', 'reason'],
        additionalProperties: false,
        properties: { developerUserId: { type: 'string' }, railResolutions: { type: 'object', additionalProperties: { type: 'string' } }, reason: { type: 'string' } },
      },
    },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['rowIndex', 'developerUserId', 'reason'],
        additionalProperties: false,
        properties: { rowIndex: count, developerUserId: { type: ['string', 'null'] }, reason: { type: 'string' } },
      },
    },
  },
} as const;
export type MigrationDetails = FromSchema<typeof migrationDetailsSchema>;

export const migrationResultSchema = {
  type: 'object',
  required: ['object', 'env', 'totalRows', 'matched', 'created', 'conflicts', 'errors', 'entitlementsGranted', 'entitlementsSkippedRailBacked', 'entitlementsSkippedLapsed', 'entitlementsUndetermined', 'entitlementKeysRegistered', 'details', 'processedAt'],
  additionalProperties: false,
  properties: {
    object: { const: 'migration_result' },
    env: wireEnvSchema,
    totalRows: count,
    matched: count,
    created: count,
    conflicts: count,
    errors: count,
    entitlementsGranted: count,
    entitlementsSkippedRailBacked: count,
    entitlementsSkippedLapsed: count,
    entitlementsUndetermined: count,
    entitlementKeysRegistered: count,
    details: migrationDetailsSchema,
    processedAt: unixTimeSchema,
  },
} as const;
export type MigrationResult = FromSchema<typeof migrationResultSchema>;
