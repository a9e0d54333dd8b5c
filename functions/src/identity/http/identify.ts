import { route } from '../../http/route';
import { identifyBodySchema, identifyResponseSchema, type IdentifyBody, type IdentifyResponse } from '../../wire/identity';
import { identify, identifyInput } from '../identifyService';
import { identityPorts, type IdentityRoutePorts } from './requestPorts';

/** `POST /v1/identify` (legacy `/v1/identity/alias`): link a device to a developer user id. */
export const identifyRoute = route<IdentifyBody, Record<string, string>, Record<string, string>, IdentifyResponse, IdentityRoutePorts>({
  method: 'POST',
  path: '/v1/identify',
  aliases: ['/v1/identity/alias'],
  key: 'any',
  rateLimit: 'alias',
  body: identifyBodySchema,
  response: identifyResponseSchema,
  cacheControl: 'no-store',
  async handler(ctx) {
    const { ports, caller } = identityPorts(ctx);
    const { input, result } = await identify(ports, caller, identifyInput(ctx.body));
    const body: IdentifyResponse = {
      object: 'alias_result',
      serviceCustomerId: result.customerId!,
      linked: [
        { type: 'developer', id: input.userId },
        { type: 'anonymous', id: input.anonymousId },
      ],
      mergePending: result.mergePending,
      env: ctx.auth.wireEnv,
    };
    return { body };
  },
});
