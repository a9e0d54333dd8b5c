import { ApiError } from '../http/errors';
import { rateLimitedError } from '../http/rateLimit';
import type { RequestContext } from '../http/route';
import type { EnvScope } from '../store/scope';
import type { TokenCheck } from './idTokens';
import { optionalAppAccountToken, optionalEmail, optionalToken, requireAnonymousId, requireUserId } from './identifiers';
import type { MoveSurface } from './deviceMoves';
import { identityPolicy } from './identityPolicy';
import { linkIdentities, VerifiedIdentityRequired, type Assurance, type Hint, type LinkResult } from './link';
import { identityLogs } from './logs';
import { sanitizeTraits, type Traits } from './traits';
import { VelocityExceeded, VelocityWindow } from './velocity';

export interface IdentifyInput {
  userId: string;
  anonymousId: string;
  email: string | null;
  idToken: string | null;
  appAccountToken: string | null;
  traits: Traits;
}

/** Validates an identify body (or one bulk-alias row); field names are prefixed for rows. */
export function parseIdentifyInput(body: Record<string, unknown>, prefix = ''): IdentifyInput {
  return {
    userId: requireUserId(body.userId, `${prefix}userId`),
    anonymousId: requireAnonymousId(body.anonymousId, `${prefix}anonymousId`),
    email: optionalEmail(body.email, `${prefix}email`),
    idToken: optionalToken(body.idToken, `${prefix}idToken`),
    appAccountToken: optionalAppAccountToken(body.appAccountToken, `${prefix}appAccountToken`),
    traits: sanitizeTraits(body.traits, `${prefix}traits`),
  };
}

export function identifyHints(input: IdentifyInput): Hint[] {
  const hints: Hint[] = [
    { kind: 'developer', id: input.userId },
    { kind: 'anonymous', id: input.anonymousId },
  ];
  if (input.appAccountToken) hints.push({ kind: 'apple_aat', id: input.appAccountToken });
  return hints;
}

/** Links the input's identifiers and merges its profile into the customer. */
export async function linkIdentify(
  scope: EnvScope,
  input: IdentifyInput,
  options: { assurance: Assurance; email: string | null; now: number; velocity: boolean; deviceVerified: boolean; surface: MoveSurface; refuseNewDeviceForVerifiedUser?: boolean },
): Promise<LinkResult> {
  return linkIdentities(scope, {
    hints: identifyHints(input),
    assurance: options.assurance,
    now: options.now,
    profile: { email: options.email, traits: input.traits },
    velocityUserId: options.velocity ? input.userId : undefined,
    deviceVerified: options.deviceVerified,
    moveForeignDevices: options.surface,
    refuseNewDeviceForVerifiedUser: options.refuseNewDeviceForVerifiedUser,
  });
}

const windows = new WeakMap<object, VelocityWindow>();
/** The per-instance velocity window (one per Deps, i.e. per process in production). */
function velocityWindow(ctx: RequestContext<unknown, unknown>): VelocityWindow {
  let window = windows.get(ctx.deps);
  if (!window) {
    window = new VelocityWindow();
    windows.set(ctx.deps, window);
  }
  return window;
}

function velocityError(retryAfterMs: number): ApiError {
  return rateLimitedError({ granted: 0, requested: 1, retryAfterMs, sampleRate: 0, failedOpen: false }, 'identify calls for this userId');
}

/** Fails the request with the right error when a presented token does not verify. */
export function requireVerified(ctx: RequestContext<unknown, unknown>, check: TokenCheck): asserts check is Extract<TokenCheck, { ok: true }> {
  if (check.ok) return;
  if (check.reason === 'unavailable') {
    identityLogs.identityProviderUnavailable(ctx.requestId, ctx.auth.projectId, check.detail);
    throw new ApiError('internal_error', 'The identity provider could not be reached to verify the token. Retry later.', { internal: check.detail });
  }
  identityLogs.identityTokenRejected(ctx.requestId, ctx.auth.projectId, check.detail);
  throw new ApiError('identity_token_invalid', 'The idToken failed verification.', { internal: check.detail });
}

export interface IdentifyOutcome {
  input: IdentifyInput;
  result: LinkResult;
}

/**
 * `POST /v1/identify`: validation → velocity cap → token verification → transactional link.
 * Without a verified token from a publishable key, the project's `requireVerifiedIdentity`
 * setting (identityPolicy.ts) decides whether a new device may be linked to a verified user.
 */
export async function identify(ctx: RequestContext<Record<string, unknown>, unknown>): Promise<IdentifyOutcome> {
  const input = parseIdentifyInput(ctx.body);
  const now = ctx.deps.clock.now();
  const local = velocityWindow(ctx).admit(`${ctx.auth.projectId}/${ctx.auth.env}/${input.userId}`, now);
  if (!local.admitted) {
    identityLogs.velocityCapped(ctx.requestId, ctx.auth.projectId, ctx.auth.env);
    throw velocityError(local.retryAfterMs);
  }

  let assurance: Assurance = 'self_asserted';
  let email = input.email;
  if (input.idToken) {
    const check = await ctx.deps.idTokens.verify(ctx.auth.projectId, input.idToken, input.userId, now);
    requireVerified(ctx, check);
    assurance = 'verified';
    email = check.identity.email ?? email; // a verified email claim overrides the asserted one
  }
  const refuseNewDeviceForVerifiedUser = assurance !== 'verified' && ctx.auth.kind === 'publishable' && (await identityPolicy(ctx, now)).requireVerifiedIdentity;

  try {
    const result = await linkIdentify(ctx.scope, input, { assurance, email, now, velocity: true, deviceVerified: assurance === 'verified', surface: 'identify', refuseNewDeviceForVerifiedUser });
    if (result.conflictId && result.mergePending) identityLogs.mergeConflictQueued(ctx.auth.projectId, ctx.auth.env, result.conflictId);
    if (result.devicesMoved > 0) identityLogs.deviceMoved(ctx.requestId, ctx.auth.projectId, ctx.auth.env, result.customerId!);
    return { input, result };
  } catch (err) {
    if (err instanceof VelocityExceeded) {
      identityLogs.velocityCapped(ctx.requestId, ctx.auth.projectId, ctx.auth.env);
      throw velocityError(err.retryAfterMs);
    }
    if (err instanceof VerifiedIdentityRequired) {
      identityLogs.verifiedIdentityRequired(ctx.requestId, ctx.auth.projectId, ctx.auth.env);
      throw new ApiError('identity_token_invalid', 'This user has a verified identity: linking a new device needs a valid idToken for the userId.');
    }
    throw err;
  }
}
