import { ingestEventsRoute } from './ingestRoute';

/** The routes of this capability, mounted by app/groups.ts. */
export const eventRoutes = [ingestEventsRoute];
