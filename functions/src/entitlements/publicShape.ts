import { toUnixSeconds } from '../clock';
import type { GrantRecord, ProjectedEntitlement, ProjectionDoc, PublicEntitlement } from './model';

/**
 * The frozen `PublicEntitlement` shape, built from a stored projection. Ordered by key, so every
 * read of the same projection gives the same array. `isActive` is decided now, at read time,
 * against `validUntil` (stored projections are never rewritten just because time passed).
 * `validUntil` and `updatedAt` are Unix seconds; `validUntil` null means lifetime.
 */
export function toPublicEntitlements(projection: ProjectionDoc | null, now: number): PublicEntitlement[] {
  if (!projection) return [];
  return Object.values(projection.entitlements)
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((entitlement) => toPublicEntitlement(entitlement, now));
}

/** One projected entitlement in the public shape, `isActive` as of `now`. */
export function toPublicEntitlement(entitlement: ProjectedEntitlement, now: number): PublicEntitlement {
  return {
    object: 'entitlement',
    key: entitlement.key,
    isActive: isActiveAt(entitlement.validUntil, now),
    validUntil: entitlement.validUntil === null ? null : toUnixSeconds(entitlement.validUntil),
    source: { rail: entitlement.source.rail, productId: entitlement.source.productId, subscriptionId: entitlement.source.subscriptionId },
    updatedAt: toUnixSeconds(entitlement.updatedAt),
  };
}

/** Active until the end instant (exclusive); null is lifetime. */
export const isActiveAt = (validUntil: number | null, now: number): boolean => validUntil === null || validUntil > now;

/**
 * One grant in the public shape (grant and revoke responses): a revoked grant is inactive and
 * reports the revocation instant as its end.
 */
export function grantToPublic(grant: GrantRecord, now: number): PublicEntitlement {
  const end = grant.revokedAt ?? grant.validUntil;
  return {
    object: 'entitlement',
    key: grant.entitlementKey,
    isActive: grant.revokedAt === null && isActiveAt(grant.validUntil, now),
    validUntil: end === null ? null : toUnixSeconds(end),
    source: { rail: grant.source.rail, productId: grant.source.productId, subscriptionId: grant.source.subscriptionId },
    updatedAt: toUnixSeconds(grant.updatedAt),
  };
}
