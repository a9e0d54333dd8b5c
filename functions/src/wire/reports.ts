import type { FromSchema } from 'json-schema-to-ts';
import { CUSTOMER_ID, ERROR_FINGERPRINT } from '../ids';
import { anyPathParam, publicEntitlementSchema, railSchema, unixTimeSchema, wireEnvSchema } from './common';

/** The reporting endpoints (secret keys, each behind its scope) and the dashboard's reads of the same services. */

export const MAX_PAGE_SIZE = 100;

// Queries -----------------------------------------------------------------------------------

const cursorParam = { type: 'string', minLength: 1, maxLength: 512, pattern: '^[A-Za-z0-9_-]+$', 'x-invalid': 'pass the `nextCursor` of the previous page unchanged' } as const;
const limitParam = { type: 'string', pattern: '^(?:[1-9][0-9]?|100)$', 'x-invalid': `an integer from 1 to ${MAX_PAGE_SIZE}` } as const;
const unixMsParam = { type: 'string', pattern: '^[0-9]{1,15}$', 'x-invalid': 'must be Unix milliseconds (an integer)' } as const;
const granularitySchema = { type: 'string', enum: ['day', 'hour'] } as const;

/** A page of a list: `cursor` (the previous page's `nextCursor`) and `limit` (1–100, default 20). */
export const pageQuerySchema = {
  type: 'object',
  properties: { cursor: cursorParam, limit: limitParam },
  additionalProperties: false,
} as const;
export type PageQuery = FromSchema<typeof pageQuerySchema>;

/** A report's window: `from`/`to` in Unix ms (strings in the query) and the granularity. */
export const rangeQuerySchema = {
  type: 'object',
  properties: { from: unixMsParam, to: unixMsParam, granularity: granularitySchema },
  additionalProperties: false,
} as const;
export type RangeQuery = FromSchema<typeof rangeQuerySchema>;

/** `GET /v1/reports/errors`: the window and a page. */
export const errorsQuerySchema = {
  type: 'object',
  properties: { from: unixMsParam, to: unixMsParam, cursor: cursorParam, limit: limitParam },
  additionalProperties: false,
} as const;
export type ErrorsQuery = FromSchema<typeof errorsQuerySchema>;

export const fingerprintParamsSchema = {
  type: 'object',
  required: ['fingerprint'],
  properties: { fingerprint: anyPathParam },
} as const;
export type FingerprintParams = FromSchema<typeof fingerprintParamsSchema>;

// Responses ---------------------------------------------------------------------------------

const count = { type: 'integer', minimum: 0 } as const;
const seriesEnvelope = {
  from: unixTimeSchema,
  to: unixTimeSchema,
  granularity: granularitySchema,
  env: wireEnvSchema,
  generatedAt: unixTimeSchema,
} as const;

const identityKindSchema = { type: 'string', enum: ['developer', 'anonymous', 'stripe', 'apple_otx', 'apple_aat', 'google_token', 'google_account'] } as const;

const customerRowSchema = {
  type: 'object',
  required: ['object', 'serviceCustomerId', 'createdAt', 'email', 'identities', 'entitlements'],
  additionalProperties: false,
  properties: {
    object: { const: 'customer' },
    serviceCustomerId: CUSTOMER_ID.schema,
    createdAt: unixTimeSchema,
    email: { type: ['string', 'null'] },
    identities: {
      type: 'array',
      items: { type: 'object', required: ['type', 'id'], additionalProperties: false, properties: { type: identityKindSchema, id: { type: 'string' } } },
    },
    entitlements: { type: 'array', items: publicEntitlementSchema },
  },
} as const;
export type CustomerRow = FromSchema<typeof customerRowSchema>;

/** `GET /v1/reports/customers` (`reporting:identity`). */
export const customersReportSchema = {
  type: 'object',
  required: ['object', 'data', 'hasMore', 'nextCursor', 'env'],
  additionalProperties: false,
  properties: {
    object: { const: 'list' },
    data: { type: 'array', items: customerRowSchema },
    hasMore: { type: 'boolean' },
    nextCursor: { type: ['string', 'null'] },
    env: wireEnvSchema,
  },
} as const;
export type CustomersReport = FromSchema<typeof customersReportSchema>;

const errorGroupFields = {
  object: { const: 'error_group' },
  fingerprint: ERROR_FINGERPRINT.schema,
  name: { type: 'string' },
  type: { type: ['string', 'null'] },
  message: { type: ['string', 'null'] },
  level: { type: 'string' },
  count,
  customers: count,
  firstSeen: unixTimeSchema,
  lastSeen: unixTimeSchema,
  lastRelease: { type: ['string', 'null'] },
} as const;
const errorGroupRequired = ['object', 'fingerprint', 'name', 'type', 'message', 'level', 'count', 'customers', 'firstSeen', 'lastSeen', 'lastRelease'] as const;

const errorGroupSummarySchema = {
  type: 'object',
  required: errorGroupRequired,
  additionalProperties: false,
  properties: errorGroupFields,
} as const;
export type ErrorGroupSummary = FromSchema<typeof errorGroupSummarySchema>;

/** `GET /v1/reports/errors` (`errors:read`): groups last seen in the window, newest first. */
export const errorsReportSchema = {
  type: 'object',
  required: ['object', 'data', 'hasMore', 'nextCursor', 'env'],
  additionalProperties: false,
  properties: {
    object: { const: 'list' },
    data: { type: 'array', items: errorGroupSummarySchema },
    hasMore: { type: 'boolean' },
    nextCursor: { type: ['string', 'null'] },
    env: wireEnvSchema,
  },
} as const;
export type ErrorsReport = FromSchema<typeof errorsReportSchema>;

/** One stack frame, resolved at read time through the release's source maps (or why not). */
const resolvedFrameSchema = {
  type: 'object',
  required: ['raw', 'function', 'fileUrl', 'line', 'column', 'original', 'reason'],
  additionalProperties: false,
  properties: {
    raw: { type: 'string' },
    function: { type: ['string', 'null'] },
    fileUrl: { type: ['string', 'null'] },
    line: { type: ['integer', 'null'] },
    column: { type: ['integer', 'null'] },
    original: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          required: ['source', 'line', 'column', 'name'],
          additionalProperties: false,
          properties: { source: { type: 'string' }, line: { type: 'integer' }, column: { type: 'integer' }, name: { type: ['string', 'null'] } },
        },
      ],
    },
    reason: { enum: ['no_location', 'no_sourcemap', 'no_mapping', null] },
  },
} as const;

/** A group with its latest sample (null once the customer whose event it was is erased). */
export const errorGroupDetailSchema = {
  type: 'object',
  required: [...errorGroupRequired, 'latestSample'],
  additionalProperties: false,
  properties: {
    ...errorGroupFields,
    latestSample: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          required: ['eventId', 'timestamp', 'level', 'release', 'message', 'serviceCustomerId', 'rawStack', 'frames'],
          additionalProperties: false,
          properties: {
            eventId: { type: 'string' },
            timestamp: unixTimeSchema,
            level: { type: 'string' },
            release: { type: ['string', 'null'] },
            message: { type: ['string', 'null'] },
            serviceCustomerId: { type: ['string', 'null'] },
            rawStack: { type: ['string', 'null'] },
            frames: { type: 'array', items: resolvedFrameSchema },
          },
        },
      ],
    },
  },
} as const;
export type ErrorGroupDetail = FromSchema<typeof errorGroupDetailSchema>;

/** `GET /v1/reports/errors/{fingerprint}`. */
export const errorDetailResponseSchema = {
  type: 'object',
  required: ['object', 'data'],
  additionalProperties: false,
  properties: { object: { const: 'error_group' }, data: errorGroupDetailSchema },
} as const;
export type ErrorDetailResponse = FromSchema<typeof errorDetailResponseSchema>;

const catalogRailSchema = { type: 'string', enum: ['stripe', 'apple', 'google'] } as const;
const subscriberCountFields = { entitlementKey: { type: 'string' }, rail: railSchema, active: count } as const;

/** `GET /v1/reports/subscribers` (`reporting:aggregate`): active subscribers now, and per period. */
export const subscribersReportSchema = {
  type: 'object',
  required: ['object', 'data', 'totals', 'series', 'from', 'to', 'granularity', 'env', 'generatedAt'],
  additionalProperties: false,
  properties: {
    object: { const: 'list' },
    data: { type: 'array', items: { type: 'object', required: ['entitlementKey', 'rail', 'active'], additionalProperties: false, properties: subscriberCountFields } },
    totals: { type: 'array', items: { type: 'object', required: ['entitlementKey', 'active'], additionalProperties: false, properties: { entitlementKey: { type: 'string' }, active: count } } },
    series: {
      type: 'array',
      items: { type: 'object', required: ['t', 'entitlementKey', 'rail', 'active'], additionalProperties: false, properties: { t: unixTimeSchema, ...subscriberCountFields } },
    },
    ...seriesEnvelope,
  },
} as const;
export type SubscribersReport = FromSchema<typeof subscribersReportSchema>;

/** `GET /v1/reports/revenue` (`revenue:read`): per period, currency and rail; MRR per currency. */
export const revenueReportSchema = {
  type: 'object',
  required: ['object', 'data', 'mrr', 'from', 'to', 'granularity', 'env', 'generatedAt'],
  additionalProperties: false,
  properties: {
    object: { const: 'list' },
    data: {
      type: 'array',
      items: {
        type: 'object',
        required: ['t', 'currency', 'rail', 'gross', 'refunds', 'net'],
        additionalProperties: false,
        properties: { t: unixTimeSchema, currency: { type: 'string' }, rail: catalogRailSchema, gross: { type: 'integer' }, refunds: { type: 'integer' }, net: { type: 'integer' } },
      },
    },
    mrr: { type: 'array', items: { type: 'object', required: ['currency', 'amount'], additionalProperties: false, properties: { currency: { type: 'string' }, amount: { type: 'integer' } } } },
    ...seriesEnvelope,
  },
} as const;
export type RevenueReport = FromSchema<typeof revenueReportSchema>;

/** `GET /v1/reports/events` (`buckets:read`): stored events per period and name, and throttling. */
export const eventsReportSchema = {
  type: 'object',
  required: ['object', 'data', 'throttling', 'from', 'to', 'granularity', 'env', 'generatedAt'],
  additionalProperties: false,
  properties: {
    object: { const: 'list' },
    data: { type: 'array', items: { type: 'object', required: ['t', 'name', 'count'], additionalProperties: false, properties: { t: unixTimeSchema, name: { type: 'string' }, count } } },
    throttling: {
      type: 'array',
      items: { type: 'object', required: ['t', 'throttled', 'dropped'], additionalProperties: false, properties: { t: unixTimeSchema, throttled: count, dropped: count } },
    },
    ...seriesEnvelope,
  },
} as const;
export type EventsReport = FromSchema<typeof eventsReportSchema>;
