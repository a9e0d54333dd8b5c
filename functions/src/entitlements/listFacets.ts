import { isActiveAt } from './publicShape';
import type { ProjectedEntitlement } from './model';

/**
 * The projection's `listFacets`: what the dashboard's customer list filters on, one
 * `array-contains` query each (an index, not a scan): `e:{key}` (holds the entitlement),
 * `r:{rail}` (holds one through that rail), `e:{key}|r:{rail}` (both). Only entitlements active
 * at the write count; the writer rewrites them with the projection, including when the expiry
 * worker records an end.
 */
export function listFacets(entitlements: Record<string, ProjectedEntitlement>, now: number): string[] {
  const facets = new Set<string>();
  for (const entitlement of Object.values(entitlements)) {
    if (!isActiveAt(entitlement.validUntil, now)) continue;
    facets.add(entitlementFacet(entitlement.key));
    facets.add(railFacet(entitlement.source.rail));
    facets.add(entitlementFacet(entitlement.key, entitlement.source.rail));
  }
  return [...facets].sort();
}

export const railFacet = (rail: string): string => `r:${rail}`;
export const entitlementFacet = (key: string, rail?: string): string => (rail === undefined ? `e:${key}` : `e:${key}|r:${rail}`);
