import type { EnvScope } from '../store/scope';
import { linkIdentities, type Assurance, type LinkResult } from './link';
import type { Traits } from './traits';
import type { IdentityIndexEntry, IdentityKind } from './model';
import { customerRef, identityRef } from './refs';

/**
 * The identity repository other capabilities code against (events' out-of-band resolution,
 * purchases, rails, migration). Stable signatures; the logic lives in link.ts.
 */
export { customerRef, identityRef };

/** The customer an identifier belongs to, by one direct document read (no query). */
export async function findCustomerIdByIdentity(scope: EnvScope, kind: IdentityKind, id: string): Promise<string | null> {
  const snapshot = await scope.get(identityRef(scope, kind, id));
  return snapshot.exists ? (snapshot.data() as IdentityIndexEntry).customerId : null;
}

/**
 * Resolves identity hints to one customer, transactionally: creates the customer when no hint
 * is known (exactly one, however many calls race), links unknown hints to the known customer,
 * and when hints already belong to different customers returns the developer-user-id
 * customer with `mergePending: true` and queues a conflict for review (never merges).
 * `customerId` is null only when no hint was given.
 */
export async function linkHints(
  scope: EnvScope,
  hints: { kind: IdentityKind; id: string }[],
  assurance: Assurance,
  now: number,
): Promise<{ customerId: string | null; mergePending: boolean }> {
  const result = await linkIdentities(scope, { hints, assurance, now });
  return { customerId: result.customerId, mergePending: result.mergePending };
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
