import { toPublicEntitlements } from '../entitlements/publicShape';
import { DAY } from '../clock';
import type { EnvScope } from '../store/scope';
import type { VerifiedIdentity } from './idTokens';
import { linkIdentities } from './link';
import { identityLogs } from './logs';
import { readByCustomerId } from './customerRead';
import type { IdentityCaller, IdentityPorts } from './ports';
import { customerRef, identityRef } from '../customers/refs';
import type { RecommendedAction, ResolveResponse } from '../wire/identity';

/** Trust tiers (spec › States › Trust tiers). The server derives the tier and fails closed. */
export const TRUSTED_DEVICE_WINDOW_MS = 90 * DAY;


export interface ResolveInput {
  anonymousId: string | null;
  userId: string | null;
  idToken: string | null;
  passkeyAvailable: boolean;
}


/** Pure: the tier of a device binding (tiers 0–2); tier 3 needs a verified token now. */
export function deviceTier(
  binding: { developerId: string | null; verifiedAt: number | null } | null,
  passkeyAvailable: boolean,
  now: number,
): { trustTier: 0 | 1 | 2; status: 'recognized' | 'anonymous'; recommendedAction: RecommendedAction } {
  if (!binding || !binding.developerId) return { trustTier: 0, status: 'anonymous', recommendedAction: 'onboard' };
  const verifiedAt = binding.verifiedAt;
  if (verifiedAt !== null && verifiedAt <= now && now - verifiedAt <= TRUSTED_DEVICE_WINDOW_MS) {
    return { trustTier: 2, status: 'recognized', recommendedAction: passkeyAvailable ? 'one_tap' : 'silent_refresh' };
  }
  return { trustTier: 1, status: 'recognized', recommendedAction: 'welcome_back' };
}

/**
 * `POST /v1/resolve`. A token is checked only when both `userId` and `idToken` are given; a
 * failed check (invalid, expired, wrong issuer/audience/subject, provider unreachable) never
 * errors and never elevates: the answer falls through to the stored device binding. A user id
 * without a verified token is never trusted, so it can never reach a user's entitlements.
 */
export async function resolveVisitor(ports: IdentityPorts, caller: IdentityCaller, input: ResolveInput): Promise<ResolveResponse> {
  const { scope } = ports;
  const now = ports.clock.now();
  if (input.userId && input.idToken) {
    const check = await ports.idTokens.verify(scope.projectId, input.idToken, input.userId, now);
    if (check.ok) return authenticated(scope, input, input.userId, check.identity, now);
    identityLogs.identityTokenRejected(caller.requestId, scope.projectId, check.detail);
  }
  return recognized(scope, input, now);
}

async function authenticated(scope: EnvScope, input: ResolveInput, userId: string, identity: VerifiedIdentity, now: number): Promise<ResolveResponse> {
  let customerId: string | null;
  if (input.anonymousId) {
    // Verified on this device now: bind the device to the user and stamp it (tier 2 for 90 days).
    const linked = await linkIdentities(scope, {
      hints: [
        { kind: 'developer', id: userId },
        { kind: 'anonymous', id: input.anonymousId },
      ],
      assurance: 'verified',
      now,
      deviceVerified: true,
      moveForeignDevices: 'resolve',
    });
    customerId = linked.customerId;
  } else {
    const [entry] = await scope.getAll(identityRef(scope, 'developer', userId));
    customerId = entry.data()?.customerId ?? null;
  }
  const view = customerId ? await readByCustomerId(scope, customerId) : null;
  const customer = view?.customer ?? null;
  const email = identity.email ?? customer?.email ?? null;
  const traitName = customer?.traits?.firstName;
  const firstName = identity.givenName ?? (typeof traitName === 'string' ? traitName : null);
  return {
    object: 'resolve_result',
    status: 'authenticated',
    trustTier: 3,
    user: { id: userId, ...(email ? { email } : {}), ...(firstName ? { firstName } : {}) },
    entitlements: toPublicEntitlements(view?.projection ?? null, now).filter((e) => e.isActive),
    recommendedAction: 'enter',
    anonymousId: input.anonymousId,
  };
}

async function recognized(scope: EnvScope, input: ResolveInput, now: number): Promise<ResolveResponse> {
  let binding: { developerId: string | null; verifiedAt: number | null; email: string | null } | null = null;
  if (input.anonymousId) {
    const [entrySnap] = await scope.getAll(identityRef(scope, 'anonymous', input.anonymousId));
    if (entrySnap.exists) {
      const entry = entrySnap.data()!;
      const [customerSnap] = await scope.getAll(customerRef(scope, entry.customerId));
      const customer = customerSnap.data() ?? null;
      if (customer && customer.status === 'active') {
        const developer = customer.identities.find((i) => i.kind === 'developer');
        binding = { developerId: developer?.id ?? null, verifiedAt: entry.verifiedAt ?? null, email: customer.email };
      }
    }
  }
  const tier = deviceTier(binding, input.passkeyAvailable, now);
  return {
    object: 'resolve_result',
    status: tier.status,
    trustTier: tier.trustTier,
    user: tier.trustTier === 0 || !binding?.developerId ? null : { id: binding.developerId, ...(binding.email ? { email: binding.email } : {}) },
    entitlements: null,
    recommendedAction: tier.recommendedAction,
    anonymousId: input.anonymousId,
  };
}
