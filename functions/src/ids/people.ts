import { idRule } from './rule';

/**
 * The service's customer id: `cdcust_` + 24 base62 as minted (identity/model.ts), admitted with
 * any document-id-safe suffix of 1–128 characters. Three rules were in use (this one; a 64-long
 * suffix for event hints; base62-only for report cursors): the spec says only "a string starting
 * with `cdcust_`", so the widest rule that keeps the id a safe document id decides (ids/README.md).
 */
export const CUSTOMER_ID = idRule('customer id', 'cdcust_', '^cdcust_[A-Za-z0-9_-]{1,128}$');

/** A developer user id (spec, `POST /v1/identify`: 1–256 chars; letters, digits and `_ - . : @`). */
export const DEVELOPER_USER_ID = idRule('developer user id', '', '^[A-Za-z0-9_.:@-]{1,256}$');

/** An anonymous (device) id (spec: 1–128 chars; letters, digits, `_ -`). */
export const ANONYMOUS_ID = idRule('anonymous id', '', '^[A-Za-z0-9_-]{1,128}$');

/** A lowercase RFC 4122 UUID (versions 1–5, variant 10xx), as App Store appAccountTokens are. */
export const APP_ACCOUNT_TOKEN = idRule('app account token', '', '^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$');
