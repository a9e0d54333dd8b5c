import type { CompiledRoute } from '../http/route';
import { serverRoutes } from '../entitlements/routes';
import { eventRoutes } from '../events/routes';
import { identityRoutes, identityServerRoutes } from '../identity/routes';
import { purchaseRoutes } from '../purchases/routes';
import { dashboardRoutes } from '../dashboard/routes';
import { webhookRoutes } from '../rails/routes';
import { reportRoutes } from '../reports/routes';
import { sdkRoutes } from '../sdk/routes';
import { sourcemapRoutes } from '../sourcemaps/routes';
import { openApiRoute } from './openapi/route';
import type { GroupName } from './groupNames';

export { GROUP_FUNCTIONS, type GroupName } from './groupNames';

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
  server: [...serverRoutes, ...identityServerRoutes],
  sourcemaps: sourcemapRoutes,
  webhooks: webhookRoutes,
  dashboard: dashboardRoutes,
  reports: reportRoutes,
} satisfies Record<GroupName, CompiledRoute[]>;

export const ALL_ROUTES: CompiledRoute[] = Object.values(GROUPS).flat();
