import { DomainError } from '../errors/domain';

/** Secret-key scopes (Authentication › Scopes). Fixed at creation, never widened. */
export const AGGREGATE_SCOPES = ['reporting:aggregate', 'revenue:read', 'errors:read', 'buckets:read'] as const;
export const ROW_LEVEL_SCOPES = ['reporting:identity', 'crossmatch:read'] as const;
export const ALL_SCOPES: readonly string[] = [...AGGREGATE_SCOPES, ...ROW_LEVEL_SCOPES];
export type Scope = (typeof AGGREGATE_SCOPES)[number] | (typeof ROW_LEVEL_SCOPES)[number];

/**
 * The scope map a new secret key gets: aggregate scopes by default; row-level identity scopes
 * only with an explicit acknowledgement of the row-level-data terms.
 */
export function scopesForNewKey(requested: string[], acknowledgedRowLevel: boolean): string[] {
  if (requested.length === 0) return [...AGGREGATE_SCOPES];
  for (const scope of requested) {
    if (!ALL_SCOPES.includes(scope)) throw new DomainError('invalid_argument', `Unknown scope ${scope}. Known: ${ALL_SCOPES.join(', ')}.`);
    if ((ROW_LEVEL_SCOPES as readonly string[]).includes(scope) && !acknowledgedRowLevel) {
      throw new DomainError('invalid_argument', `Scope ${scope} is row-level data: pass --acknowledge-row-level-data to accept its terms.`);
    }
  }
  if (requested.includes('crossmatch:read') && !requested.includes('reporting:identity')) {
    throw new DomainError('invalid_argument', 'crossmatch:read goes with reporting:identity.');
  }
  return [...new Set(requested)].sort();
}
