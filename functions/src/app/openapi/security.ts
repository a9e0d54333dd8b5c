import { AGGREGATE_SCOPES, ROW_LEVEL_SCOPES } from '../../keys/scopes';
import type { CompiledRoute } from '../../http/route';

/**
 * How callers authenticate, as OpenAPI security schemes: each key kind in either header the
 * spec accepts (`Authorization: Bearer` or `Service-Api-Key`), and the dashboard's operator
 * sign-in. The reports' scopes (and the operator roles) are listed in a requirement's array,
 * which OpenAPI 3.1 allows for any scheme type as role names.
 */
export const SECURITY_SCHEMES = {
  publishableBearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'cd_pub_{test|live}_…',
    description: 'A publishable key (client-safe; subject to the platform identity lock of its app) as `Authorization: Bearer <key>`.',
  },
  publishableHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'Service-Api-Key',
    description: 'A publishable key as `Service-Api-Key: <key>` (equivalent to the bearer form).',
  },
  secretBearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'cd_sk_{test|live}_…',
    description: scopeText('A secret key (server only) as `Authorization: Bearer <key>`.'),
  },
  secretHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'Service-Api-Key',
    description: scopeText('A secret key as `Service-Api-Key: <key>` (equivalent to the bearer form).'),
  },
  operatorToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'Firebase ID token, or the local session token',
    description:
      'The dashboard API: a signed-in operator (a Firebase Authentication ID token deployed; the session token of `npm start`’s sign-in link locally). Inside a project the operator’s role on it (`viewer`, `admin`) is checked: `403 insufficient_scope`.',
  },
} as const;

function scopeText(lead: string): string {
  return (
    `${lead} Reporting routes need a scope, fixed when the key is created: aggregate ` +
    `${AGGREGATE_SCOPES.map((s) => `\`${s}\``).join(', ')} (the default), or row-level ` +
    `${ROW_LEVEL_SCOPES.map((s) => `\`${s}\``).join(', ')}. A key without the route's scope gets \`403 insufficient_scope\`.`
  );
}

export type SecurityRequirement = Record<string, string[]>;

/** The requirement alternatives of a route: any one of them admits the request. */
export function routeSecurity(route: CompiledRoute): SecurityRequirement[] {
  const roles: string[] = route.scope ? [route.scope] : [];
  const publishable: SecurityRequirement[] = [{ publishableBearer: [] }, { publishableHeader: [] }];
  const secret: SecurityRequirement[] = [{ secretBearer: roles }, { secretHeader: roles }];
  switch (route.key) {
    case 'none':
      return [];
    case 'publishable':
      return publishable;
    case 'secret':
      return secret;
    case 'any':
      return [...publishable, ...secret];
    case 'operator': {
      const role = route.path.includes('/:projectId/') ? (route.operatorRole ?? (route.method === 'GET' ? 'viewer' : 'admin')) : null;
      return [{ operatorToken: role ? [role] : [] }];
    }
  }
}
