import type { JSONSchemaType } from 'ajv';
import { invalidParam } from '../../http/errors';
import { route } from '../../http/route';
import { CUSTOMER_ID_PATTERN } from '../customerRead';
import { anonymousIdSchema, tokenSchema, userIdSchema } from '../identifiers';
import { forget, type ForgetInput } from '../forgetService';
import { identityPorts, type IdentityRoutePorts } from './requestPorts';

/** `POST /v1/identity/forget`: right to be forgotten. Hints sent as `""` or `null` count as absent. */
export interface ForgetBody {
  customerId?: string | null;
  userId?: string | null;
  anonymousId?: string | null;
  idToken?: string | null;
}

/** A hint's rule, with `""` admitted (absent). */
const orEmpty = <S extends { pattern: string; 'x-invalid'?: string }>(schema: S) => ({ ...schema, pattern: `^$|${schema.pattern}`, nullable: true as const, 'x-missing-when-empty': false });

export const forgetBodySchema: JSONSchemaType<ForgetBody> = {
  type: 'object',
  required: [],
  properties: {
    customerId: {
      type: 'string',
      nullable: true,
      pattern: `^$|${CUSTOMER_ID_PATTERN.source}`,
      'x-code': 'invalid_customer',
      'x-message': { type: 'customerId must be a service customer id starting with `cdcust_`.', pattern: 'customerId must be a service customer id starting with `cdcust_`.' },
    },
    userId: orEmpty(userIdSchema),
    anonymousId: orEmpty(anonymousIdSchema),
    idToken: { ...tokenSchema, nullable: true },
  },
  'x-invalid': { type: 'must be an object' },
};

export interface ForgotResponse {
  object: 'forgot';
  serviceCustomerId: string | null;
  queuedAt: number;
  env: string;
}

const given = (value: string | null | undefined): string | null => (value === undefined || value === null || value === '' ? null : value);

/** After validation: at least one hint (a rule across fields, which the schema does not word). */
export function forgetInput(body: ForgetBody): ForgetInput {
  const input: ForgetInput = { customerId: given(body.customerId), userId: given(body.userId), anonymousId: given(body.anonymousId), idToken: body.idToken ?? null };
  if (!input.customerId && !input.userId && !input.anonymousId) {
    throw invalidParam('Give at least one of `customerId`, `userId` or `anonymousId`.');
  }
  return input;
}

export const forgetRoute = route<ForgetBody, Record<string, string>, IdentityRoutePorts>({
  method: 'POST',
  path: '/v1/identity/forget',
  key: 'any',
  rateLimit: 'forget',
  body: forgetBodySchema,
  cacheControl: 'no-store',
  async handler(ctx) {
    const { ports, caller } = identityPorts(ctx);
    const outcome = await forget({ ...ports, tasks: ctx.deps.tasks }, caller, forgetInput(ctx.body));
    const body: ForgotResponse = { object: 'forgot', serviceCustomerId: outcome.customerId, queuedAt: outcome.queuedAt, env: ctx.auth.wireEnv };
    return { body };
  },
});
