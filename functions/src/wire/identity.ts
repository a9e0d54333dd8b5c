import type { FromSchema } from 'json-schema-to-ts';
import { ANONYMOUS_ID, APP_ACCOUNT_TOKEN, CUSTOMER_ID, DEVELOPER_USER_ID } from '../ids';
import { onceQueryParam, publicEntitlementSchema, wireEnvSchema, unixTimeSchema } from './common';

/** Identity routes: identify (and its bulk form), forget, the public entitlements read, resolve. */

/** Trait limits per call (spec › Limits); identity/traits.ts applies the same ones. */
export const MAX_TRAIT_KEYS = 32;
export const MAX_TRAIT_STRING_LENGTH = 1024;
export const MAX_TRAIT_KEY_LENGTH = 128;
export const EMAIL_MAX_LENGTH = 320;
export const EMAIL_PATTERN = '^[^\\s@]+@[^\\s@]+$';
export const TOKEN_MAX_LENGTH = 16_384;

/** The identifier rules as subschemas; messages worded as identity/identifiers.ts words them. */
const userIdSchema = { ...DEVELOPER_USER_ID.schema, 'x-missing-when-empty': true, 'x-invalid': '1–256 characters of letters, digits and _ - . : @' } as const;
const anonymousIdSchema = { ...ANONYMOUS_ID.schema, 'x-missing-when-empty': true, 'x-invalid': '1–128 characters of letters, digits, _ and -' } as const;
const appAccountTokenSchema = { ...APP_ACCOUNT_TOKEN.schema, 'x-invalid': 'must be a lowercase RFC 4122 UUID' } as const;
const emailSchema = { type: 'string', maxLength: EMAIL_MAX_LENGTH, pattern: EMAIL_PATTERN, 'x-invalid': `must be an email address of at most ${EMAIL_MAX_LENGTH} characters` } as const;
const tokenSchema = { type: 'string', minLength: 1, maxLength: TOKEN_MAX_LENGTH, 'x-invalid': 'must be a non-empty token string' } as const;

/** `null` is admitted where a field is optional (absent and null mean the same). */
const orNull = <S extends { readonly type: string }>(schema: S) => ({ ...schema, type: [schema.type, 'null'] }) as Omit<S, 'type'> & { readonly type: readonly [S['type'], 'null'] };

/**
 * One call's traits (the rules identity/traits.ts `sanitizeTraits` applies, same messages):
 * nested objects and arrays pass validation, and `sanitizeTraits` then drops them.
 */
const traitsSchema = {
  type: ['object', 'null'],
  maxProperties: MAX_TRAIT_KEYS,
  propertyNames: { minLength: 1, maxLength: MAX_TRAIT_KEY_LENGTH, not: { pattern: '^__.*__$' }, 'x-invalid': `keys are 1–${MAX_TRAIT_KEY_LENGTH} characters and not of the form __name__` },
  additionalProperties: { type: ['string', 'number', 'boolean', 'null', 'object', 'array'], maxLength: MAX_TRAIT_STRING_LENGTH, 'x-invalid': `strings are at most ${MAX_TRAIT_STRING_LENGTH} characters` },
  'x-invalid': { type: 'must be an object', maxProperties: `at most ${MAX_TRAIT_KEYS} keys` },
} as const;

const identityLinkSchema = {
  type: 'object',
  required: ['type', 'id'],
  additionalProperties: false,
  properties: { type: { type: 'string', enum: ['developer', 'anonymous'] }, id: { type: 'string' } },
} as const;

// POST /v1/identify (legacy /v1/identity/alias) ------------------------------------------------

export const identifyBodySchema = {
  type: 'object',
  required: ['userId', 'anonymousId'],
  properties: {
    userId: userIdSchema,
    anonymousId: anonymousIdSchema,
    email: orNull(emailSchema),
    idToken: orNull(tokenSchema),
    appAccountToken: orNull(appAccountTokenSchema),
    traits: traitsSchema,
  },
  'x-invalid': { type: 'must be an object' },
} as const;
export type IdentifyBody = FromSchema<typeof identifyBodySchema>;

export const identifyResponseSchema = {
  type: 'object',
  required: ['object', 'serviceCustomerId', 'linked', 'mergePending', 'env'],
  additionalProperties: false,
  properties: {
    object: { const: 'alias_result' },
    serviceCustomerId: CUSTOMER_ID.schema,
    linked: { type: 'array', items: identityLinkSchema },
    mergePending: { type: 'boolean' },
    env: wireEnvSchema,
  },
} as const;
export type IdentifyResponse = FromSchema<typeof identifyResponseSchema>;

// POST /v1/server/customers/alias (bulk identify; shapes not shown by the spec) ----------------

const MAX_ALIAS_ROWS = 1000;
const LINKS_REQUIRED = '`links` is required and must hold 1–1000 rows.';

export const bulkAliasBodySchema = {
  type: 'object',
  required: ['links'],
  properties: {
    links: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_ALIAS_ROWS,
      items: {}, // any row: rows are checked one by one against identifyBodySchema
      'x-missing-when-empty': true,
      'x-code': { empty: 'missing_required_param', minItems: 'missing_required_param' },
      'x-message': { empty: LINKS_REQUIRED, minItems: LINKS_REQUIRED },
      'x-invalid': { type: `must be an array of 1–${MAX_ALIAS_ROWS} rows`, maxItems: `at most ${MAX_ALIAS_ROWS} rows per request` },
    },
  },
  'x-code': { required: 'missing_required_param' },
  'x-message': { required: LINKS_REQUIRED },
} as const;
export type BulkAliasBody = FromSchema<typeof bulkAliasBodySchema>;

const aliasRowResultSchema = {
  anyOf: [
    {
      type: 'object',
      required: ['index', 'serviceCustomerId', 'mergePending'],
      additionalProperties: false,
      properties: { index: { type: 'integer', minimum: 0 }, serviceCustomerId: CUSTOMER_ID.schema, mergePending: { type: 'boolean' } },
    },
    {
      type: 'object',
      required: ['index', 'error'],
      additionalProperties: false,
      properties: {
        index: { type: 'integer', minimum: 0 },
        error: { type: 'object', required: ['code', 'message'], additionalProperties: false, properties: { code: { type: 'string' }, message: { type: 'string' } } },
      },
    },
  ],
} as const;
export type AliasRowResult = FromSchema<typeof aliasRowResultSchema>;

export const bulkAliasResponseSchema = {
  type: 'object',
  required: ['object', 'env', 'total', 'linked', 'mergePending', 'errors', 'results'],
  additionalProperties: false,
  properties: {
    object: { const: 'alias_batch' },
    env: wireEnvSchema,
    total: { type: 'integer', minimum: 0 },
    linked: { type: 'integer', minimum: 0 },
    mergePending: { type: 'integer', minimum: 0 },
    errors: { type: 'integer', minimum: 0 },
    results: { type: 'array', items: aliasRowResultSchema },
  },
} as const;
export type BulkAliasResponse = FromSchema<typeof bulkAliasResponseSchema>;

// POST /v1/identity/forget ------------------------------------------------------------------

const CUSTOMER_ID_RULE = 'customerId must be a service customer id starting with `cdcust_`.';

/** A hint's rule with `""` admitted (the spec treats `""` and `null` as absent). */
const orEmpty = <S extends { readonly type: 'string'; readonly pattern: string }>(schema: S) =>
  ({ ...schema, type: ['string', 'null'], pattern: `^$|${schema.pattern}`, 'x-missing-when-empty': false }) as Omit<S, 'type' | 'pattern' | 'x-missing-when-empty'> & { readonly type: readonly ['string', 'null']; readonly pattern: string; readonly 'x-missing-when-empty': false };

export const forgetBodySchema = {
  type: 'object',
  properties: {
    customerId: {
      type: ['string', 'null'],
      pattern: `^$|${CUSTOMER_ID.schema.pattern}`,
      'x-code': 'invalid_customer',
      'x-message': { type: CUSTOMER_ID_RULE, pattern: CUSTOMER_ID_RULE },
    },
    userId: orEmpty(userIdSchema),
    anonymousId: orEmpty(anonymousIdSchema),
    idToken: orNull(tokenSchema),
  },
  'x-invalid': { type: 'must be an object' },
} as const;
export type ForgetBody = FromSchema<typeof forgetBodySchema>;

export const forgetResponseSchema = {
  type: 'object',
  required: ['object', 'serviceCustomerId', 'queuedAt', 'env'],
  additionalProperties: false,
  properties: {
    object: { const: 'forgot' },
    serviceCustomerId: { anyOf: [CUSTOMER_ID.schema, { type: 'null' }] },
    queuedAt: unixTimeSchema,
    env: wireEnvSchema,
  },
} as const;
export type ForgetResponse = FromSchema<typeof forgetResponseSchema>;

// GET /v1/entitlements ----------------------------------------------------------------------

/**
 * Each hint at most once. Which hint, and its format, are checked after validation, in the
 * spec's order of codes (missing_customer, invalid_customer, then several hints, then format).
 */
export const entitlementsQuerySchema = {
  type: 'object',
  properties: { customerId: onceQueryParam, userId: onceQueryParam, anonymousId: onceQueryParam },
} as const;
export type EntitlementsQuery = FromSchema<typeof entitlementsQuerySchema>;

/** The list of one customer's entitlements: `serviceCustomerId` is `""` for an unknown customer (spec). */
export const entitlementListResponseSchema = {
  type: 'object',
  required: ['object', 'data', 'serviceCustomerId', 'env'],
  additionalProperties: false,
  properties: {
    object: { const: 'list' },
    data: { type: 'array', items: publicEntitlementSchema },
    serviceCustomerId: { anyOf: [CUSTOMER_ID.schema, { const: '' }] },
    env: wireEnvSchema,
  },
} as const;
export type EntitlementListResponse = FromSchema<typeof entitlementListResponseSchema>;

// POST /v1/resolve --------------------------------------------------------------------------

export const resolveBodySchema = {
  type: 'object',
  properties: {
    anonymousId: orNull(anonymousIdSchema),
    userId: orNull(userIdSchema),
    idToken: orNull(tokenSchema),
    passkeyAvailable: { type: ['boolean', 'null'], 'x-invalid': 'must be a boolean' },
  },
  'x-invalid': { type: 'must be an object' },
} as const;
export type ResolveBody = FromSchema<typeof resolveBodySchema>;

const recommendedActionSchema = { type: 'string', enum: ['enter', 'silent_refresh', 'one_tap', 'welcome_back', 'onboard'] } as const;
export type RecommendedAction = FromSchema<typeof recommendedActionSchema>;

export const resolveResponseSchema = {
  type: 'object',
  required: ['object', 'status', 'trustTier', 'user', 'entitlements', 'recommendedAction', 'anonymousId'],
  additionalProperties: false,
  properties: {
    object: { const: 'resolve_result' },
    status: { type: 'string', enum: ['authenticated', 'recognized', 'anonymous'] },
    trustTier: { enum: [0, 1, 2, 3] },
    user: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          required: ['id'],
          additionalProperties: false,
          properties: { id: { type: 'string' }, email: { type: 'string' }, firstName: { type: 'string' } },
        },
      ],
    },
    entitlements: { anyOf: [{ type: 'null' }, { type: 'array', items: publicEntitlementSchema }] },
    recommendedAction: recommendedActionSchema,
    anonymousId: { type: ['string', 'null'] },
  },
} as const;
export type ResolveResponse = FromSchema<typeof resolveResponseSchema>;
