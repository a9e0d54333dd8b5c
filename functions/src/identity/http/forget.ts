import { invalidParam } from '../../http/errors';
import { route } from '../../http/route';
import { forgetBodySchema, forgetResponseSchema, type ForgetBody, type ForgetResponse } from '../../wire/identity';
import { forget, type ForgetInput } from '../forgetService';
import { identityPorts, type IdentityRoutePorts } from './requestPorts';

/** `POST /v1/identity/forget`: right to be forgotten. Hints sent as `""` or `null` count as absent. */
const given = (value: string | null | undefined): string | null => (value === undefined || value === null || value === '' ? null : value);

/** After validation: at least one hint (a rule across fields, which the schema does not word). */
export function forgetInput(body: ForgetBody): ForgetInput {
  const input: ForgetInput = { customerId: given(body.customerId), userId: given(body.userId), anonymousId: given(body.anonymousId), idToken: body.idToken ?? null };
  if (!input.customerId && !input.userId && !input.anonymousId) {
    throw invalidParam('Give at least one of `customerId`, `userId` or `anonymousId`.');
  }
  return input;
}

export const forgetRoute = route<ForgetBody, Record<string, string>, Record<string, string>, ForgetResponse, IdentityRoutePorts>({
  method: 'POST',
  path: '/v1/identity/forget',
  key: 'any',
  rateLimit: 'forget',
  body: forgetBodySchema,
  response: forgetResponseSchema,
  cacheControl: 'no-store',
  async handler(ctx) {
    const { ports, caller } = identityPorts(ctx);
    const outcome = await forget({ ...ports, tasks: ctx.deps.tasks }, caller, forgetInput(ctx.body));
    const body: ForgetResponse = { object: 'forgot', serviceCustomerId: outcome.customerId, queuedAt: outcome.queuedAt, env: ctx.auth.wireEnv };
    return { body };
  },
});
