import type { CompiledRoute } from '../http/route';
import { auditReadRoute } from '../audit/http/readRoute';
import { serverRoutes } from '../entitlements/http/routes';
import { migrationRoute } from '../migration/http/route';
import { eventRoutes } from '../events/http/routes';
import { identityRoutes, identityServerRoutes } from '../identity/http/routes';
import { purchaseRoutes } from '../purchases/http/routes';
import { dashboardRoutes } from '../dashboard/routes';
import { webhookRoutes } from '../rails/http/routes';
import { reportRoutes } from '../reports/http/routes';
import { sdkRoutes } from '../sdk/http/routes';
import { sourcemapRoutes } from '../sourcemaps/http/routes';
import type { Deps } from './deps';
import { openApiRoute } from './openapi/route';
import type { GroupName } from './groupNames';

export type { GroupName } from './groupNames';

/**
 * Endpoint groups: one deployed HTTPS function each. A capability lists its routes in its own
 * routes.ts; firebase.json's Hosting rewrites send each group's paths (with and without `/v1`)
 * to its function, and a test checks the two agree. Every group answers an unknown route with
 * 400; `platform` also receives every path no other group claims.
 */
export const GROUPS = {
  platform: [...sdkRoutes, openApiRoute],
  identity: identityRoutes,
  events: eventRoutes,
  purchases: purchaseRoutes,
  server: [...serverRoutes, auditReadRoute, migrationRoute, ...identityServerRoutes],
  sourcemaps: sourcemapRoutes,
  webhooks: webhookRoutes,
  dashboard: dashboardRoutes,
  reports: reportRoutes,
} satisfies Record<GroupName, CompiledRoute<Deps>[]>;

export const ALL_ROUTES: CompiledRoute<Deps>[] = Object.values(GROUPS).flat();
