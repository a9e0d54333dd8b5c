import type { JSONSchemaType } from 'ajv';
import { signInOptions } from '../signInOptions';
import { dashboardRoute, DASHBOARD_API, NO_STORE, reply } from './paths';

/**
 * `POST /v1/dashboard-api/session/local`: the local stack's login link token for a session
 * token (kept by the page in sessionStorage, sent as a Bearer token). Refused unless `npm start`
 * enabled the local login for this run.
 */
export interface LocalLoginBody {
  loginToken: string;
}

export const localLoginSchema: JSONSchemaType<LocalLoginBody> = {
  type: 'object',
  required: ['loginToken'],
  properties: { loginToken: { type: 'string', minLength: 1, maxLength: 200 } },
};

export const localLoginRoute = dashboardRoute<LocalLoginBody>({
  method: 'POST',
  path: `${DASHBOARD_API}/session/local`,
  key: 'none',
  body: localLoginSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(ctx.deps.operators.exchangeLocalLogin(ctx.body.loginToken)),
});

/** `GET /v1/dashboard-api/session`: who is signed in and the projects they may open, with their role. */
export const sessionRoute = dashboardRoute({
  method: 'GET',
  path: `${DASHBOARD_API}/session`,
  key: 'operator',
  cacheControl: NO_STORE,
  handler: async (ctx) => {
    const { identity } = ctx.operator;
    return reply({ operator: { email: identity.email, via: identity.via }, projects: await ctx.deps.operators.projects(identity) });
  },
});

/** `GET /v1/dashboard-api/session/options`: where the page signs in (the Auth emulator under the suite, else Firebase Authentication). */
export const signInOptionsRoute = dashboardRoute({
  method: 'GET',
  path: `${DASHBOARD_API}/session/options`,
  key: 'none',
  cacheControl: NO_STORE,
  handler: async () => reply(signInOptions()),
});

/**
 * `POST /v1/dashboard-api/session/sign-out`: ends the session on the server (authenticator.ts
 * `signOut`): the token that asks is refused from then on.
 */
export const signOutRoute = dashboardRoute({
  method: 'POST',
  path: `${DASHBOARD_API}/session/sign-out`,
  key: 'operator',
  operatorRole: 'viewer',
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.deps.operators.signOut(ctx.header('authorization'))),
});
