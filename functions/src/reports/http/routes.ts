import { customersRoute } from './customersRoute';
import { errorDetailRoute, errorsRoute } from './errorRoutes';
import { eventsRoute, revenueRoute, subscribersRoute } from './seriesRoutes';

/** The `reports` group (`reportsApi`). */
export const reportRoutes = [subscribersRoute, revenueRoute, eventsRoute, errorsRoute, errorDetailRoute, customersRoute];
