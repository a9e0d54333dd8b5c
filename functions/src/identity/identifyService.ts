import { DomainError } from '../errors/domain';
import { rateLimited } from '../ratelimit/refusal';
import type { EnvScope } from '../store/scope';
import type { TokenCheck } from './idTokens';
import type { MoveSurface } from './deviceMoves';
import { identityPolicy } from './identityPolicy';
import { linkIdentities, VerifiedIdentityRequired, type Assurance, type Hint, type LinkResult } from './link';
import { identityLogs } from './logs';
import type { IdentityCaller, IdentityPorts } from './ports';
import { sanitizeTraits, type Traits } from './traits';
import { VelocityExceeded } from './velocity';

export interface IdentifyInput {
  userId: string;
  anonymousId: string;
  email: string | null;
  idToken: string | null;
  appAccountToken: string | null;
  traits: Traits;
}

/** An identify body (or bulk-alias row) as its schema admits it (identify.ts). */
export interface IdentifyBody {
  userId: string;
  anonymousId: string;
  email?: string | null;
  idToken?: string | null;
  appAccountToken?: string | null;
  traits?: Record<string, unknown> | null;
}

/** A validated body as the service's input: absent means null, nested trait values dropped. */
export function identifyInput(body: IdentifyBody): IdentifyInput {
  return {
    userId: body.userId,
    anonymousId: body.anonymousId,
    email: body.email ?? null,
    idToken: body.idToken ?? null,
    appAccountToken: body.appAccountToken ?? null,
    traits: sanitizeTraits(body.traits),
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

function velocityError(retryAfterMs: number): DomainError<'rate_limited'> {
  return rateLimited({ retryAfterMs, sampleRate: 0 }, 'identify calls for this userId');
}

/** Fails the request with the right error when a presented token does not verify. */
export function requireVerified(requestId: string, projectId: string, check: TokenCheck): asserts check is Extract<TokenCheck, { ok: true }> {
  if (check.ok) return;
  if (check.reason === 'unavailable') {
    identityLogs.identityProviderUnavailable(requestId, projectId, check.detail);
    throw new DomainError('internal_error', 'The identity provider could not be reached to verify the token. Retry later.', { internal: check.detail });
  }
  identityLogs.identityTokenRejected(requestId, projectId, check.detail);
  throw new DomainError('identity_token_invalid', 'The idToken failed verification.', { internal: check.detail });
}

export interface IdentifyOutcome {
  input: IdentifyInput;
  result: LinkResult;
}

/**
 * `POST /v1/identify`: validation → velocity cap → token verification → transactional link.
 * Without a verified token (from any key), the project's `requireVerifiedIdentity` setting
 * (identityPolicy.ts) decides whether a new device may be linked to a verified user.
 */
export async function identify(ports: IdentityPorts, caller: IdentityCaller, input: IdentifyInput): Promise<IdentifyOutcome> {
  const { scope, clock, idTokens, memory } = ports;
  const { projectId, env } = scope;
  const now = clock.now();
  const local = memory.velocity.admit(`${projectId}/${env}/${input.userId}`, now);
  if (!local.admitted) {
    identityLogs.velocityCapped(caller.requestId, projectId, env);
    throw velocityError(local.retryAfterMs);
  }

  let assurance: Assurance = 'self_asserted';
  let email = input.email;
  if (input.idToken) {
    const check = await idTokens.verify(projectId, input.idToken, input.userId, now);
    requireVerified(caller.requestId, projectId, check);
    assurance = 'verified';
    email = check.identity.email ?? email; // a verified email claim overrides the asserted one
  }
  // Whatever the key: under the policy nothing binds a device to a verified user without a token.
  const refuseNewDeviceForVerifiedUser = assurance !== 'verified' && (await identityPolicy(scope, memory.policy, now)).requireVerifiedIdentity;

  try {
    const result = await linkIdentify(scope, input, { assurance, email, now, velocity: true, deviceVerified: assurance === 'verified', surface: 'identify', refuseNewDeviceForVerifiedUser });
    if (result.conflictId && result.mergePending) identityLogs.mergeConflictQueued(projectId, env, result.conflictId);
    if (result.devicesMoved > 0) identityLogs.deviceMoved(caller.requestId, projectId, env, result.customerId!);
    return { input, result };
  } catch (err) {
    if (err instanceof VelocityExceeded) {
      identityLogs.velocityCapped(caller.requestId, projectId, env);
      throw velocityError(err.retryAfterMs);
    }
    if (err instanceof VerifiedIdentityRequired) {
      identityLogs.verifiedIdentityRequired(caller.requestId, projectId, env);
      throw new DomainError('identity_token_invalid', 'This user has a verified identity: linking a new device needs a valid idToken for the userId.');
    }
    throw err;
  }
}
