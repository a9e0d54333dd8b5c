import { HOUR } from '../../clock';
import type { Grace } from '../../wire/dashboard';

/**
 * The grace chooser's choices, shared by both rotations (an API key's and a webhook endpoint's
 * signing secret: both services accept 0 to 7 days; the page marks each rotation's default).
 * The body's schema is wire/dashboard `graceBodySchema`.
 */
export const GRACES: Record<Grace, number> = { '0': 0, '1h': HOUR, '24h': 24 * HOUR, '7d': 7 * 24 * HOUR };
