import { ApiError, missingParam } from '../http/errors';
import { route } from '../http/route';
import { migrateUsers } from './service';

/** At most 1,000 rows per request (spec › Limits). */
export const MAX_MIGRATION_ROWS = 1000;

/** Rows may carry traits (up to 32 values of 1 KB each), so the body limit is above the default. */
const MIGRATION_BODY_LIMIT = 16 * 1024 * 1024;

/**
 * `POST /v1/migration/users`: secret key only. The request is rejected as a whole only when
 * `users` is missing, empty, not an array or longer than 1,000 rows; every other problem is a
 * per-row entry of `details.errors`.
 */
export const migrationRoute = route<{ users?: unknown }>({
  method: 'POST',
  path: '/v1/migration/users',
  key: 'secret',
  maxBodyBytes: MIGRATION_BODY_LIMIT,
  body: { type: 'object' },
  cacheControl: 'no-store',
  handler: async (ctx) => {
    const { users } = ctx.body;
    if (users === undefined || users === null || (Array.isArray(users) && users.length === 0)) {
      throw missingParam('`users` is required: an array of 1 to 1000 rows.');
    }
    if (!Array.isArray(users)) throw new ApiError('invalid_param_value', 'Invalid value for `users`: must be an array of 1 to 1000 rows.');
    if (users.length > MAX_MIGRATION_ROWS) {
      throw new ApiError('invalid_param_value', `Invalid value for \`users\`: at most ${MAX_MIGRATION_ROWS} rows per request (got ${users.length}).`);
    }
    const outcome = await migrateUsers(ctx.deps, ctx.scope, users, ctx.requestId);
    return {
      body: { object: 'migration_result', env: ctx.auth.wireEnv, ...outcome, processedAt: ctx.deps.clock.now() },
    };
  },
});
