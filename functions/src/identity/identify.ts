import { route } from '../http/route';
import { identify } from './identifyService';

/** `POST /v1/identify` (legacy `/v1/identity/alias`): link a device to a developer user id. */
export const identifyBodySchema = { type: 'object' } as const;

export interface IdentifyResponse {
  object: 'alias_result';
  serviceCustomerId: string;
  linked: { type: 'developer' | 'anonymous'; id: string }[];
  mergePending: boolean;
  env: string;
}

export const identifyRoute = route<Record<string, unknown>>({
  method: 'POST',
  path: '/v1/identify',
  aliases: ['/v1/identity/alias'],
  key: 'any',
  rateLimit: 'alias',
  body: identifyBodySchema,
  cacheControl: 'no-store',
  async handler(ctx) {
    const { input, result } = await identify(ctx);
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
