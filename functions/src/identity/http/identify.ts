import type { JSONSchemaType } from 'ajv';
import { route } from '../../http/route';
import { anonymousIdSchema, appAccountTokenSchema, emailSchema, tokenSchema, userIdSchema } from '../identifiers';
import { identify, identifyInput, type IdentifyBody } from '../identifyService';
import { identityPorts, type IdentityRoutePorts } from './requestPorts';
import { traitsSchema } from '../traits';

export type { IdentifyBody };

/** `POST /v1/identify` (legacy `/v1/identity/alias`): link a device to a developer user id. */
export const identifyBodySchema: JSONSchemaType<IdentifyBody> = {
  type: 'object',
  required: ['userId', 'anonymousId'],
  properties: {
    userId: userIdSchema,
    anonymousId: anonymousIdSchema,
    email: { ...emailSchema, nullable: true },
    idToken: { ...tokenSchema, nullable: true },
    appAccountToken: { ...appAccountTokenSchema, nullable: true },
    traits: traitsSchema as unknown as JSONSchemaType<IdentifyBody>['properties']['traits'],
  },
  'x-invalid': { type: 'must be an object' },
};

export interface IdentifyResponse {
  object: 'alias_result';
  serviceCustomerId: string;
  linked: { type: 'developer' | 'anonymous'; id: string }[];
  mergePending: boolean;
  env: string;
}

export const identifyRoute = route<IdentifyBody, Record<string, string>, IdentityRoutePorts>({
  method: 'POST',
  path: '/v1/identify',
  aliases: ['/v1/identity/alias'],
  key: 'any',
  rateLimit: 'alias',
  body: identifyBodySchema,
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
