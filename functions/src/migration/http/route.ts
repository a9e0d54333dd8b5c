import { route } from '../../http/route';
import { migrationBodySchema, migrationResultSchema, type MigrationBody, type MigrationResult } from '../../wire/migration';
import { migrateUsers } from '../service';
import type { MigrationDeps } from '../deps';

/** Rows may carry traits (up to 32 values of 1 KB each), so the body limit is above the default. */
const MIGRATION_BODY_LIMIT = 16 * 1024 * 1024;

/**
 * `POST /v1/migration/users`: secret key only. The request is rejected as a whole only when
 * `users` is missing, empty, not an array or longer than 1,000 rows; every other problem is a
 * per-row entry of `details.errors`.
 */
export const migrationRoute = route<MigrationBody, Record<string, string>, Record<string, string>, MigrationResult, MigrationDeps>({
  method: 'POST',
  path: '/v1/migration/users',
  key: 'secret',
  maxBodyBytes: MIGRATION_BODY_LIMIT,
  body: migrationBodySchema,
  response: migrationResultSchema,
  cacheControl: 'no-store',
  handler: async (ctx) => {
    const { users } = ctx.body;
    const outcome = await migrateUsers(ctx.deps, ctx.scope, users, ctx.requestId);
    return {
      body: { object: 'migration_result', env: ctx.auth.wireEnv, ...outcome, processedAt: ctx.deps.clock.now() },
    };
  },
});
