import { invalidParam } from '../../http/errors';
import { route } from '../../http/route';
import { resolveBodySchema, resolveResponseSchema, type ResolveBody, type ResolveResponse } from '../../wire/identity';
import { identityPorts, type IdentityRoutePorts } from './requestPorts';
import { resolveVisitor, type ResolveInput } from '../resolveService';

/** `POST /v1/resolve`: the visitor's trust tier, what the app may show, and what to do next. */
/** After validation: something to resolve (a rule across fields). */
export function resolveInput(body: ResolveBody): ResolveInput {
  const input: ResolveInput = { anonymousId: body.anonymousId ?? null, userId: body.userId ?? null, idToken: body.idToken ?? null, passkeyAvailable: body.passkeyAvailable === true };
  if (!input.anonymousId && !(input.userId && input.idToken)) {
    throw invalidParam('Nothing to resolve: give `anonymousId`, or `userId` with an `idToken`.');
  }
  return input;
}

export const resolveRoute = route<ResolveBody, Record<string, string>, Record<string, string>, ResolveResponse, IdentityRoutePorts>({
  method: 'POST',
  path: '/v1/resolve',
  key: 'any',
  rateLimit: 'entitlements',
  body: resolveBodySchema,
  response: resolveResponseSchema,
  cacheControl: 'private, no-store',
  async handler(ctx) {
    const { ports, caller } = identityPorts(ctx);
    const body: ResolveResponse = await resolveVisitor(ports, caller, resolveInput(ctx.body));
    return { body };
  },
});
