import { grantRoute } from './grantRoute';
import { revokeRoute } from './revokeRoute';
import { serverEntitlementsRoute } from './serverReadRoute';

/** The routes of this capability, mounted by app/groups.ts in the `server` group. */
export const serverRoutes = [serverEntitlementsRoute, grantRoute, revokeRoute];
