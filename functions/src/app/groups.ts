import type { CompiledRoute } from '../http/route';
import { sdkRoutes } from '../sdk/routes';

/**
 * Endpoint groups: one deployed HTTPS function each. A capability adds its routes to one
 * group here; firebase.json's Hosting rewrites send each group's paths (with and without
 * `/v1`) to its function, and a test checks the two agree. `platform` also answers every
 * path no other group claims (unknown route → 400).
 */
export const GROUPS = {
  platform: [...sdkRoutes],
} satisfies Record<string, CompiledRoute[]>;

export type GroupName = keyof typeof GROUPS;

/** Function names as exported from index.ts. */
export const GROUP_FUNCTIONS: Record<GroupName, string> = {
  platform: 'platformApi',
};

export const ALL_ROUTES: CompiledRoute[] = Object.values(GROUPS).flat();
