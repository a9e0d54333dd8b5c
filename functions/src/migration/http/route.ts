import type { JSONSchemaType } from 'ajv';
import { route } from '../../http/route';
import { MAX_MIGRATION_ROWS } from '../rows';
import { migrateUsers } from '../service';
import type { MigrationDeps } from '../deps';

/** Rows may carry traits (up to 32 values of 1 KB each), so the body limit is above the default. */
const MIGRATION_BODY_LIMIT = 16 * 1024 * 1024;

export interface MigrationBody {
  /** Rows are checked one by one (service.ts): a bad row is reported, not the request. */
  users: unknown[];
}

const USERS_REQUIRED = '`users` is required: an array of 1 to 1000 rows.';

export const migrationBodySchema: JSONSchemaType<MigrationBody> = {
  type: 'object',
  required: ['users'],
  properties: {
    users: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_MIGRATION_ROWS,
      items: {} as JSONSchemaType<unknown>,
      'x-missing-when-empty': true,
      'x-code': { empty: 'missing_required_param', minItems: 'missing_required_param' },
      'x-message': { empty: USERS_REQUIRED, minItems: USERS_REQUIRED },
      'x-invalid': { type: 'must be an array of 1 to 1000 rows', maxItems: `at most ${MAX_MIGRATION_ROWS} rows per request` },
    },
  },
  'x-code': { required: 'missing_required_param' },
  'x-message': { required: USERS_REQUIRED },
};

/**
 * `POST /v1/migration/users`: secret key only. The request is rejected as a whole only when
 * `users` is missing, empty, not an array or longer than 1,000 rows; every other problem is a
 * per-row entry of `details.errors`.
 */
export const migrationRoute = route<MigrationBody, Record<string, string>, MigrationDeps>({
  method: 'POST',
  path: '/v1/migration/users',
  key: 'secret',
  maxBodyBytes: MIGRATION_BODY_LIMIT,
  body: migrationBodySchema,
  cacheControl: 'no-store',
  handler: async (ctx) => {
    const { users } = ctx.body;
    const outcome = await migrateUsers(ctx.deps, ctx.scope, users, ctx.requestId);
    return {
      body: { object: 'migration_result', env: ctx.auth.wireEnv, ...outcome, processedAt: ctx.deps.clock.now() },
    };
  },
});
