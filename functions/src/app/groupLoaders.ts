import type { CompiledRoute } from '../http/route';
import type { GroupName } from './groupNames';

/**
 * Each group's routes, loaded on demand: a deployed function loads only its own group's modules
 * (Firebase's guidance for many functions in one codebase), on its first request. The lists
 * match GROUPS in groups.ts, which the local runner and the tests load whole; a test holds the
 * two together.
 */
export const GROUP_LOADERS: Record<GroupName, () => Promise<CompiledRoute[]>> = {
  platform: async () => {
    const [sdk, openApi] = await Promise.all([import('../sdk/routes'), import('./openapi/route')]);
    return [...sdk.sdkRoutes, openApi.openApiRoute];
  },
  identity: async () => (await import('../identity/routes')).identityRoutes,
  events: async () => (await import('../events/routes')).eventRoutes,
  purchases: async () => (await import('../purchases/routes')).purchaseRoutes,
  server: async () => {
    const [entitlements, identity] = await Promise.all([import('../entitlements/routes'), import('../identity/routes')]);
    return [...entitlements.serverRoutes, ...identity.identityServerRoutes];
  },
  sourcemaps: async () => (await import('../sourcemaps/routes')).sourcemapRoutes,
  webhooks: async () => (await import('../rails/routes')).webhookRoutes,
  dashboard: async () => (await import('../dashboard/routes')).dashboardRoutes,
  reports: async () => (await import('../reports/routes')).reportRoutes,
};
