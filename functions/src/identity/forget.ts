import { ApiError, invalidParam } from '../http/errors';
import { route } from '../http/route';
import { CUSTOMER_ID_PATTERN } from './customerRead';
import { optionalToken, requireAnonymousId, requireUserId } from './identifiers';
import { forget, type ForgetInput } from './forgetService';

/** `POST /v1/identity/forget`: right to be forgotten. */
export const forgetBodySchema = { type: 'object' } as const;

export interface ForgotResponse {
  object: 'forgot';
  serviceCustomerId: string | null;
  queuedAt: number;
  env: string;
}

const present = (value: unknown): boolean => value !== undefined && value !== null && value !== '';

export function parseForgetInput(body: Record<string, unknown>): ForgetInput {
  if (!present(body.customerId) && !present(body.userId) && !present(body.anonymousId)) {
    throw invalidParam('Give at least one of `customerId`, `userId` or `anonymousId`.');
  }
  let customerId: string | null = null;
  if (present(body.customerId)) {
    if (typeof body.customerId !== 'string' || !CUSTOMER_ID_PATTERN.test(body.customerId)) {
      throw new ApiError('invalid_customer', 'customerId must be a service customer id starting with `cdcust_`.');
    }
    customerId = body.customerId;
  }
  return {
    customerId,
    userId: present(body.userId) ? requireUserId(body.userId) : null,
    anonymousId: present(body.anonymousId) ? requireAnonymousId(body.anonymousId) : null,
    idToken: optionalToken(body.idToken),
  };
}

export const forgetRoute = route<Record<string, unknown>>({
  method: 'POST',
  path: '/v1/identity/forget',
  key: 'any',
  rateLimit: 'forget',
  body: forgetBodySchema,
  cacheControl: 'no-store',
  async handler(ctx) {
    const outcome = await forget(ctx, parseForgetInput(ctx.body));
    const body: ForgotResponse = { object: 'forgot', serviceCustomerId: outcome.customerId, queuedAt: outcome.queuedAt, env: ctx.auth.wireEnv };
    return { body };
  },
});
