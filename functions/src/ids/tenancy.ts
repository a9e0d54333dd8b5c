import { idRule } from './rule';

/**
 * Who owns data: projects, their apps and the apps' API keys. A project id is also a path
 * segment of every partition (`projects/{projectId}/env/{env}`), so the rule keeps it a safe
 * document id.
 */
export const PROJECT_ID = idRule('project id', '', '^[A-Za-z0-9_-]{1,128}$');

/** `app_` + 16 base62, as projects/repository mints them; the rule admits any id-safe suffix. */
export const APP_ID = idRule('app id', 'app_', '^app_[A-Za-z0-9_-]{1,128}$');

/** `key_` + 20 base62 (keys/format.ts). */
export const KEY_ID = idRule('key id', 'key_', '^key_[A-Za-z0-9]{1,64}$');
