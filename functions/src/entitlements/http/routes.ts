import { auditReadRoute } from '../../audit/http/readRoute';
import type { CompiledRoute } from '../../http/route';
import { migrationRoute } from '../../migration/http/route';
import { grantRoute } from './grantRoute';
import { revokeRoute } from './revokeRoute';
import { serverEntitlementsRoute } from './serverReadRoute';

/** The routes of this capability, mounted by app/groups.ts in the `server` group. */
export const serverRoutes: CompiledRoute[] = [serverEntitlementsRoute, grantRoute, revokeRoute, auditReadRoute, migrationRoute];
