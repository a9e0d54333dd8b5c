import type { CompiledRoute } from '../http/route';
import type { Deps } from './deps';
import type { GroupName } from './groupNames';

/**
 * Each group's routes, loaded on demand: a deployed function loads only its own group's modules
 * (Firebase's guidance for many functions in one codebase), on its first request. The lists
 * match GROUPS in groups.ts, which the local runner and the tests load whole; a test holds the
 * two together.
 */
export const GROUP_LOADERS: Record<GroupName, () => Promise<CompiledRoute<Deps>[]>> = {
  platform: async () => {
    const [sdk, openApi] = await Promise.all([import('../sdk/http/routes'), import('./openapi/route')]);
    return [...sdk.sdkRoutes, openApi.openApiRoute];
  },
  identity: async () => (await import('../identity/http/routes')).identityRoutes,
  events: async () => (await import('../events/http/routes')).eventRoutes,
  purchases: async () => (await import('../purchases/http/routes')).purchaseRoutes,
  server: async () => {
    const [entitlements, audit, migration, identity] = await Promise.all([
      import('../entitlements/http/routes'),
      import('../audit/http/readRoute'),
      import('../migration/http/route'),
      import('../identity/http/routes'),
    ]);
    return [...entitlements.serverRoutes, audit.auditReadRoute, migration.migrationRoute, ...identity.identityServerRoutes];
  },
  sourcemaps: async () => (await import('../sourcemaps/http/routes')).sourcemapRoutes,
  webhooks: async () => (await import('../rails/http/routes')).webhookRoutes,
  dashboard: async () => (await import('../dashboard/routes')).dashboardRoutes,
  reports: async () => (await import('../reports/http/routes')).reportRoutes,
};
