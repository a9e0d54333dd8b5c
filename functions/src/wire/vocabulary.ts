/**
 * Words of the wire that every layer uses: the payment rails and the app platforms. Defined once
 * here (the kernel) so that the platform's records and rollups need no capability's model.
 */
export type Rail = 'stripe' | 'apple' | 'google' | 'manual';
/** The rails a product catalog maps (every rail but manual grants). */
export type CatalogRail = Exclude<Rail, 'manual'>;
export const CATALOG_RAILS: readonly CatalogRail[] = ['apple', 'stripe', 'google'];

export type Platform = 'web' | 'ios' | 'android';
export const PLATFORMS: readonly Platform[] = ['web', 'ios', 'android'];
