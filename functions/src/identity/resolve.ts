import { invalidParam } from '../http/errors';
import { route } from '../http/route';
import { optionalToken, requireAnonymousId, requireUserId } from './identifiers';
import { resolveVisitor, type ResolveInput, type ResolveResult } from './resolveService';

/** `POST /v1/resolve`: the visitor's trust tier, what the app may show, and what to do next. */
export const resolveBodySchema = { type: 'object' } as const;

export type { ResolveResult };

export function parseResolveInput(body: Record<string, unknown>): ResolveInput {
  const anonymousId = body.anonymousId === undefined || body.anonymousId === null ? null : requireAnonymousId(body.anonymousId);
  const userId = body.userId === undefined || body.userId === null ? null : requireUserId(body.userId);
  const idToken = optionalToken(body.idToken);
  if (body.passkeyAvailable !== undefined && body.passkeyAvailable !== null && typeof body.passkeyAvailable !== 'boolean') {
    throw invalidParam('Invalid value for `passkeyAvailable`: must be a boolean.');
  }
  if (!anonymousId && !(userId && idToken)) {
    throw invalidParam('Nothing to resolve: give `anonymousId`, or `userId` with an `idToken`.');
  }
  return { anonymousId, userId, idToken, passkeyAvailable: body.passkeyAvailable === true };
}

export const resolveRoute = route<Record<string, unknown>>({
  method: 'POST',
  path: '/v1/resolve',
  key: 'any',
  rateLimit: 'entitlements',
  body: resolveBodySchema,
  cacheControl: 'private, no-store',
  async handler(ctx) {
    const body: ResolveResult = await resolveVisitor(ctx, parseResolveInput(ctx.body));
    return { body };
  },
});
