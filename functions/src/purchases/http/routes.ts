import { purchaseSyncRoute } from './syncRoute';

/** The routes of this capability, mounted by app/groups.ts. */
export const purchaseRoutes = [purchaseSyncRoute];
