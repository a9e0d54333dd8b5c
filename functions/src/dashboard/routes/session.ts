import type { JSONSchemaType } from 'ajv';
import { route } from '../../http/route';
import { DASHBOARD_API, NO_STORE, reply } from './paths';

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

export const localLoginRoute = route<LocalLoginBody>({
  method: 'POST',
  path: `${DASHBOARD_API}/session/local`,
  key: 'none',
  body: localLoginSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(ctx.deps.operators.exchangeLocalLogin(ctx.body.loginToken)),
});

/** `GET /v1/dashboard-api/session`: who is signed in and the projects they may open, with their role. */
export const sessionRoute = route({
  method: 'GET',
  path: `${DASHBOARD_API}/session`,
  key: 'operator',
  cacheControl: NO_STORE,
  handler: async (ctx) => {
    const { identity } = ctx.operator;
    return reply({ operator: { email: identity.email, via: identity.via }, projects: await ctx.deps.operators.projects(identity) });
  },
});
