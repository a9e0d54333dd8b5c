import type { JSONSchemaType } from 'ajv';
import { invalidParam } from '../../http/errors';
import { route } from '../../http/route';
import { anonymousIdSchema, tokenSchema, userIdSchema } from '../identifiers';
import { identityPorts, type IdentityRoutePorts } from './requestPorts';
import { resolveVisitor, type ResolveInput, type ResolveResult } from '../resolveService';

/** `POST /v1/resolve`: the visitor's trust tier, what the app may show, and what to do next. */
export interface ResolveBody {
  anonymousId?: string | null;
  userId?: string | null;
  idToken?: string | null;
  passkeyAvailable?: boolean | null;
}

export const resolveBodySchema: JSONSchemaType<ResolveBody> = {
  type: 'object',
  required: [],
  properties: {
    anonymousId: { ...anonymousIdSchema, nullable: true },
    userId: { ...userIdSchema, nullable: true },
    idToken: { ...tokenSchema, nullable: true },
    passkeyAvailable: { type: 'boolean', nullable: true, 'x-invalid': 'must be a boolean' },
  },
  'x-invalid': { type: 'must be an object' },
};

/** After validation: something to resolve (a rule across fields). */
export function resolveInput(body: ResolveBody): ResolveInput {
  const input: ResolveInput = { anonymousId: body.anonymousId ?? null, userId: body.userId ?? null, idToken: body.idToken ?? null, passkeyAvailable: body.passkeyAvailable === true };
  if (!input.anonymousId && !(input.userId && input.idToken)) {
    throw invalidParam('Nothing to resolve: give `anonymousId`, or `userId` with an `idToken`.');
  }
  return input;
}

export const resolveRoute = route<ResolveBody, Record<string, string>, IdentityRoutePorts>({
  method: 'POST',
  path: '/v1/resolve',
  key: 'any',
  rateLimit: 'entitlements',
  body: resolveBodySchema,
  cacheControl: 'private, no-store',
  async handler(ctx) {
    const { ports, caller } = identityPorts(ctx);
    const body: ResolveResult = await resolveVisitor(ports, caller, resolveInput(ctx.body));
    return { body };
  },
});
