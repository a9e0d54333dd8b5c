import { idRule, NOT_RESERVED_DOC_ID } from './rule';

/**
 * An audit entry's event id, a document id: rail ids (`evt_…`, UUIDs, Pub/Sub ids) and the
 * server's own `srv_<action>_…` (audit/append.ts).
 */
export const AUDIT_EVENT_ID = idRule('audit event id', '', `^${NOT_RESERVED_DOC_ID}[A-Za-z0-9_.:-]{1,200}$`);

/** Prefix of the audit event ids the server mints (`srv_grant_…`, `srv_revoke_…`, …). */
export const SERVER_EVENT_ID_PREFIX = 'srv_';

/** An outbound webhook event: `evt_…` as the outbox mints them (any id-safe suffix). */
export const WEBHOOK_EVENT_ID = idRule('webhook event id', 'evt_', '^evt_[A-Za-z0-9_-]{1,100}$');

/** A webhook endpoint: `whep_` + 24 base62 (webhooks/endpoints.ts). */
export const WEBHOOK_ENDPOINT_ID = idRule('webhook endpoint id', 'whep_', '^whep_[A-Za-z0-9]{24}$');

/**
 * An identity conflict: `cfl_<env>_<24 hex of the customers' digest>_<projectId>`; the id names
 * its own partition (identity/conflictModel.ts parses it).
 */
export const CONFLICT_ID = idRule('conflict id', 'cfl_', '^cfl_(test|live)_[0-9a-f]{24}_([A-Za-z0-9_-]{1,128})$');

/** A release of source maps (spec: 1–64 chars: letters, digits, `.`, `_`, `-`). */
export const RELEASE = idRule('release', '', '^[A-Za-z0-9._-]{1,64}$');

/** An error group's fingerprint: 32 lowercase hex characters (events/fingerprint.ts). */
export const ERROR_FINGERPRINT = idRule('error fingerprint', '', '^[0-9a-f]{32}$');

/** An entitlement key (spec: snake_case, 2–40 characters): the rule for every key the service registers. */
export const ENTITLEMENT_KEY = idRule('entitlement key', '', '^(?=.{2,40}$)[a-z][a-z0-9]*(?:_[a-z0-9]+)*$');
