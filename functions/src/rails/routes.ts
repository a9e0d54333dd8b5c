import type { CompiledRoute } from '../http/route';

/** The routes of this capability, mounted by app/groups.ts. */
export const webhookRoutes: CompiledRoute[] = [];
