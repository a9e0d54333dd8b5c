import { bulkAliasRoute } from './bulkAlias';
import { entitlementsReadRoute } from './entitlementsRead';
import { forgetRoute } from './forget';
import { identifyRoute } from './identify';
import { resolveRoute } from './resolve';

/** The routes of this capability, mounted by app/groups.ts. */
export const identityRoutes = [identifyRoute, forgetRoute, entitlementsReadRoute, resolveRoute];

/** Identity routes served by the `server` group (secret key only). */
export const identityServerRoutes = [bulkAliasRoute];
