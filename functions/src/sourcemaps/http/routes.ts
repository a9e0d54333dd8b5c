import { uploadSourcemapsRoute } from './uploadRoute';

/** The routes of this capability, mounted by app/groups.ts. */
export const sourcemapRoutes = [uploadSourcemapsRoute];
