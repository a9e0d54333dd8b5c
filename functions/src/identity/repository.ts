import type { EnvScope } from '../store/scope';
import { identityPolicy } from './identityPolicy';
import { linkIdentities, VerifiedIdentityRequired, type Assurance, type LinkResult } from './link';
import type { IdentityMemory } from './ports';
import { VelocityExceeded } from './velocity';
import type { Traits } from './traits';
import type { IdentityKind } from '../customers/model';

/**
 * The identity repository other capabilities code against (events' out-of-band resolution,
 * purchases, rails, migration). Stable signatures; the logic lives in link.ts.
 */

/**
 * Resolves identity hints to one customer, transactionally: creates the customer when no hint
 * is known (exactly one, however many calls race), links unknown hints to the known customer,
 * and when hints already belong to different customers returns the developer-user-id
 * customer with `mergePending: true` and queues a conflict for review (never merges).
 * `customerId` is null only when no hint was given; `created`: this call minted it.
 */
export async function linkHints(
  scope: EnvScope,
  hints: { kind: IdentityKind; id: string }[],
  assurance: Assurance,
  now: number,
): Promise<{ customerId: string | null; mergePending: boolean; created: boolean }> {
  const result = await linkIdentities(scope, { hints, assurance, now });
  return { customerId: result.customerId, mergePending: result.mergePending, created: result.created };
}

/**
 * Bulk migration: linkHints with the row's profile (email stored, never used to merge; traits
 * merged additively), also telling whether the customer was minted now and which conflict,
 * if any, the row's identifiers revealed.
 */
export async function linkMigratedUser(
  scope: EnvScope,
  hints: { kind: IdentityKind; id: string }[],
  profile: { email: string | null; traits: Traits },
  now: number,
): Promise<LinkResult> {
  return linkIdentities(scope, { hints, assurance: 'self_asserted', now, profile });
}

/** Why an out-of-band link was not made as asked (see linkObservedHints). */
export type RefusedLink = 'verified_identity_required' | 'velocity_capped';

/**
 * Out-of-band links (the hints of stored events) under exactly identify's rules, so telemetry
 * never links more than an identify call could: self-asserted; the project's require-verified
 * policy (no device joins a verified user without a token, whatever key sent the events); the
 * per-user velocity cap on the developer hint's record; conflicts, newcomer devices and stale
 * entries as link.ts decides them (surface `events` in the move journal). A link those rules
 * refuse is not made: the events' device is resolved alone (no developer id is linked), and
 * `refused` says why.
 */
export async function linkObservedHints(
  scope: EnvScope,
  hints: { kind: IdentityKind; id: string }[],
  options: { now: number; memory: IdentityMemory; velocityUserId: string | null },
): Promise<{ customerId: string | null; mergePending: boolean; refused: RefusedLink | null }> {
  const { now } = options;
  const joinsDevice = hints.some((h) => h.kind === 'developer') && hints.some((h) => h.kind === 'anonymous');
  const refuseNewDeviceForVerifiedUser = joinsDevice && (await identityPolicy(scope, options.memory.policy, now)).requireVerifiedIdentity;
  try {
    const result = await linkIdentities(scope, {
      hints,
      assurance: 'self_asserted',
      now,
      velocityUserId: options.velocityUserId ?? undefined,
      moveForeignDevices: 'events',
      refuseNewDeviceForVerifiedUser,
    });
    return { customerId: result.customerId, mergePending: result.mergePending, refused: null };
  } catch (err) {
    const refused: RefusedLink | null = err instanceof VerifiedIdentityRequired ? 'verified_identity_required' : err instanceof VelocityExceeded ? 'velocity_capped' : null;
    if (!refused) throw err;
    const deviceOnly = hints.filter((h) => h.kind !== 'developer');
    const result = await linkIdentities(scope, { hints: deviceOnly, assurance: 'self_asserted', now });
    return { customerId: result.customerId, mergePending: result.mergePending, refused };
  }
}
