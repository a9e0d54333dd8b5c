import { route, type CompiledRoute, type RouteSpec } from '../../http/route';
import type { OperatorAuthenticator } from '../authenticator';

/** What every dashboard route's handler sees beyond the pipeline: the operator gate, typed as the dashboard's. */
export interface DashboardPorts {
  operators: OperatorAuthenticator;
}

/** A dashboard route: `ctx.operator` is the session the dashboard's gate authorised. */
export const dashboardRoute = <Body = unknown, Query = Record<string, string>>(spec: RouteSpec<Body, Query, DashboardPorts>): CompiledRoute =>
  route<Body, Query, DashboardPorts>(spec);

/** Every dashboard route lives under this prefix (Hosting rewrites `/dashboard-api/**` and `/v1/dashboard-api/**`). */
export const DASHBOARD_API = '/v1/dashboard-api';

/** Routes inside a project: the environment is always explicit, and the scope is that partition. */
export const IN_PROJECT = `${DASHBOARD_API}/projects/:projectId/:env`;

/** The answer of every dashboard read and change: `{ data }` (errors use the shared envelope). */
export const reply = <T>(data: T) => ({ body: { data } });

export const NO_STORE = 'private, no-store';
