import type { FromSchema } from 'json-schema-to-ts';
import { AUDIT_EVENT_ID, CUSTOMER_ID, ERROR_FINGERPRINT, KEY_ID, RELEASE, WEBHOOK_EVENT_ID } from '../ids';
import { anyPathParam, publicEntitlementSchema, railSchema, unixTimeSchema } from './common';
import { publicAuditEntrySchema } from './entitlements';
import { errorGroupDetailSchema, errorsReportSchema } from './reports';

/**
 * The dashboard API (`/v1/dashboard-api/…`, operator routes): every route's body, query, path
 * parameters and answer. Every answer is `{ data }` (`dataOf`). Answers that pass a stored
 * record through (a customer, a grant, a delivery) name the fields the page reads and admit the
 * record's others (`additionalProperties` left open): those shapes are the dashboard's own, not
 * frozen by the spec. dashboard-ui imports the types below with `import type` only.
 */
const dataOf = <const S extends object>(schema: S) => ({ type: 'object', required: ['data'], additionalProperties: false, properties: { data: schema } }) as const;

const count = { type: 'integer', minimum: 0 } as const;
const str = { type: 'string' } as const;
const strOrNull = { type: ['string', 'null'] } as const;
const timeOrNull = { type: ['integer', 'null'] } as const;
const envSchema = { type: 'string', enum: ['test', 'live'] } as const;
const platformSchema = { type: 'string', enum: ['web', 'ios', 'android'] } as const;
const roleSchema = { type: 'string', enum: ['admin', 'viewer'] } as const;
const daysParam = { type: 'string', enum: ['7', '30', '90'] } as const;
const cursorParam = { type: 'string', minLength: 1, maxLength: 512, pattern: '^[A-Za-z0-9_-]+$' } as const;
const auditEventId = AUDIT_EVENT_ID.schema;
/** Null where the change wrote no audit entry (an app created without an operator, a conflict already resolved). */
const auditEventIdOrNull = { anyOf: [{ type: 'null' }, AUDIT_EVENT_ID.schema] } as const;

// Session -----------------------------------------------------------------------------------

export const localLoginBodySchema = {
  type: 'object',
  required: ['loginToken'],
  properties: { loginToken: { type: 'string', minLength: 1, maxLength: 200 } },
} as const;
export type LocalLoginBody = FromSchema<typeof localLoginBodySchema>;

const operatorIdentitySchema = {
  type: 'object',
  required: ['email', 'via'],
  properties: { email: str, via: { type: 'string', enum: ['firebase', 'local'] } },
} as const;

export const localLoginResponseSchema = dataOf({
  type: 'object',
  required: ['sessionToken', 'expiresAt', 'operator'],
  additionalProperties: false,
  properties: { sessionToken: str, expiresAt: unixTimeSchema, operator: operatorIdentitySchema },
});

export const sessionResponseSchema = dataOf({
  type: 'object',
  required: ['operator', 'projects'],
  additionalProperties: false,
  properties: {
    operator: { type: 'object', required: ['email', 'via'], additionalProperties: false, properties: { email: str, via: { type: 'string', enum: ['firebase', 'local'] } } },
    projects: {
      type: 'array',
      items: { type: 'object', required: ['projectId', 'name', 'role', 'archived'], additionalProperties: false, properties: { projectId: str, name: str, role: roleSchema, archived: { type: 'boolean' } } },
    },
  },
});
/** @public the dashboard page imports it (import type, dashboard-ui/). */
export type SessionInfo = FromSchema<typeof sessionResponseSchema>['data'];

export const signInOptionsResponseSchema = dataOf({ type: 'object', required: ['authEmulator'], additionalProperties: false, properties: { authEmulator: strOrNull } });

export const signOutResponseSchema = dataOf({ type: 'object', required: ['signedOut'], additionalProperties: false, properties: { signedOut: { const: true } } });

// Overview ----------------------------------------------------------------------------------

export const overviewQuerySchema = { type: 'object', properties: { days: daysParam } } as const;
export type OverviewQuery = FromSchema<typeof overviewQuerySchema>;

const currencyAmounts = { type: 'array', items: { type: 'object', required: ['currency', 'amount'], additionalProperties: false, properties: { currency: str, amount: { type: 'integer' } } } } as const;
const numbers = { type: 'array', items: { type: 'number' } } as const;

export const overviewResponseSchema = dataOf({
  type: 'object',
  required: ['range', 'counts', 'subscribersByKey', 'mrr', 'series'],
  additionalProperties: false,
  properties: {
    range: { type: 'object', required: ['from', 'to', 'days'], additionalProperties: false, properties: { from: unixTimeSchema, to: unixTimeSchema, days: count } },
    counts: {
      type: 'object',
      required: ['apps', 'openConflicts', 'webhookEndpoints', 'activeSubscribers', 'errorGroups', 'errorGroupsMore'],
      additionalProperties: false,
      properties: { apps: count, openConflicts: count, webhookEndpoints: count, activeSubscribers: count, errorGroups: count, errorGroupsMore: { type: 'boolean' } },
    },
    subscribersByKey: { type: 'array', items: { type: 'object', required: ['entitlementKey', 'active'], additionalProperties: false, properties: { entitlementKey: str, active: count } } },
    mrr: currencyAmounts,
    series: {
      type: 'object',
      required: ['dayStarts', 'activeSubscribers', 'events', 'netRevenue'],
      additionalProperties: false,
      properties: {
        dayStarts: numbers,
        activeSubscribers: numbers,
        events: numbers,
        netRevenue: { type: 'array', items: { type: 'object', required: ['currency', 'values'], additionalProperties: false, properties: { currency: str, values: numbers } } },
      },
    },
  },
});
/** @public the dashboard page imports it (import type, dashboard-ui/). */
export type Overview = FromSchema<typeof overviewResponseSchema>['data'];

// Apps and keys -----------------------------------------------------------------------------

export const createAppBodySchema = {
  type: 'object',
  required: ['platform'],
  properties: {
    platform: platformSchema,
    name: { type: ['string', 'null'], minLength: 1, maxLength: 100 },
    allowedOrigins: { type: ['array', 'null'], maxItems: 50, items: { type: 'string', minLength: 1, maxLength: 300, pattern: '^https?://' } },
    bundleId: { type: ['string', 'null'], minLength: 1, maxLength: 155, pattern: '^[A-Za-z0-9.-]+$' },
    packageName: { type: ['string', 'null'], minLength: 1, maxLength: 255, pattern: '^[A-Za-z][A-Za-z0-9_]*(\\.[A-Za-z][A-Za-z0-9_]*)+$' },
  },
} as const;
export type CreateAppBody = FromSchema<typeof createAppBodySchema>;

export const appIdParamsSchema = { type: 'object', required: ['appId'], properties: { appId: anyPathParam } } as const;
export type AppIdParams = FromSchema<typeof appIdParamsSchema>;

/** Keys are named by id in paths, never by their plaintext (paths are logged). */
export const keyIdParamsSchema = {
  type: 'object',
  required: ['keyId'],
  properties: { keyId: { ...KEY_ID.schema, 'x-message': { pattern: 'The path must name a key by its id (key_…).' } } },
} as const;
export type KeyIdParams = FromSchema<typeof keyIdParamsSchema>;

/** The grace chooser's choices, shared by both rotations (an API key's and a webhook signing secret's). */
export const graceBodySchema = { type: 'object', required: ['grace'], properties: { grace: { type: 'string', enum: ['0', '1h', '24h', '7d'] } } } as const;
export type GraceBody = FromSchema<typeof graceBodySchema>;
export type Grace = GraceBody['grace'];

const keyRowSchema = {
  type: 'object',
  required: ['id', 'kind', 'env', 'key', 'state', 'createdAt', 'graceEndsAt', 'revokedAt', 'scopes'],
  additionalProperties: false,
  properties: {
    id: KEY_ID.schema,
    kind: { type: 'string', enum: ['publishable', 'secret'] },
    env: envSchema,
    key: str,
    state: { type: 'string', enum: ['active', 'grace', 'expired', 'revoked', 'archived'] },
    createdAt: unixTimeSchema,
    graceEndsAt: timeOrNull,
    revokedAt: timeOrNull,
    scopes: { type: 'array', items: str },
  },
} as const;
/** @public the dashboard page imports it (import type, dashboard-ui/). */
export type KeyRow = FromSchema<typeof keyRowSchema>;

const keyActivitySchema = {
  type: 'object',
  required: ['action', 'keyId', 'kind', 'env', 'at'],
  additionalProperties: false,
  properties: {
    action: { type: 'string', enum: ['created', 'rotated', 'revoked'] },
    keyId: str,
    kind: { type: 'string', enum: ['publishable', 'secret'] },
    env: envSchema,
    at: unixTimeSchema,
    newKeyId: str,
    graceEndsAt: unixTimeSchema,
    operator: str,
  },
} as const;

export const appsResponseSchema = dataOf({
  type: 'array',
  items: {
    type: 'object',
    required: ['appId', 'name', 'platform', 'allowedOrigins', 'bundleId', 'packageName', 'archived', 'createdAt', 'keys', 'activity'],
    additionalProperties: false,
    properties: {
      appId: str,
      name: str,
      platform: platformSchema,
      allowedOrigins: { type: 'array', items: str },
      bundleId: strOrNull,
      packageName: strOrNull,
      archived: { type: 'boolean' },
      createdAt: unixTimeSchema,
      keys: { type: 'array', items: keyRowSchema },
      activity: { type: 'array', items: keyActivitySchema },
    },
  },
});
/** @public the dashboard page imports it (import type, dashboard-ui/). */
export type AppRow = FromSchema<typeof appsResponseSchema>['data'][number];

export const createAppResponseSchema = dataOf({
  type: 'object',
  required: ['appId', 'name', 'platform', 'auditEventId'],
  additionalProperties: false,
  properties: { appId: str, name: str, platform: platformSchema, auditEventId },
});
/** @public the dashboard page imports it (import type, dashboard-ui/). */
export type CreatedApp = FromSchema<typeof createAppResponseSchema>['data'];

/** A key minted by a change: its plaintext is in this answer only (never stored, never shown again). */
const mintedKeySchema = { type: 'object', required: ['id', 'key'], additionalProperties: false, properties: { id: KEY_ID.schema, key: str } } as const;

export const createKeysResponseSchema = dataOf({
  type: 'object',
  required: ['publishable', 'secret', 'auditEventId'],
  additionalProperties: false,
  properties: { publishable: mintedKeySchema, secret: mintedKeySchema, auditEventId },
});
/** @public the dashboard page imports it (import type, dashboard-ui/). */
export type CreatedKeys = FromSchema<typeof createKeysResponseSchema>['data'];

export const rotateKeyResponseSchema = dataOf({
  type: 'object',
  required: ['newKey', 'oldKeyId', 'oldKeyExpiresAt', 'auditEventId'],
  additionalProperties: false,
  properties: { newKey: mintedKeySchema, oldKeyId: KEY_ID.schema, oldKeyExpiresAt: unixTimeSchema, auditEventId },
});
/** @public the dashboard page imports it (import type, dashboard-ui/). */
export type RotatedKey = FromSchema<typeof rotateKeyResponseSchema>['data'];

export const revokeKeyResponseSchema = dataOf({
  type: 'object',
  required: ['keyId', 'revokedAt', 'auditEventId'],
  additionalProperties: false,
  properties: { keyId: KEY_ID.schema, revokedAt: unixTimeSchema, auditEventId },
});
/** @public the dashboard page imports it (import type, dashboard-ui/). */
export type RevokedKey = FromSchema<typeof revokeKeyResponseSchema>['data'];

// Customers ---------------------------------------------------------------------------------

export const searchQuerySchema = { type: 'object', required: ['q'], properties: { q: { type: 'string', minLength: 1, maxLength: 256 } } } as const;
export type SearchQuery = FromSchema<typeof searchQuerySchema>;

export const searchResponseSchema = dataOf({
  type: 'array',
  items: { type: 'object', required: ['customerId', 'matchedBy'], additionalProperties: false, properties: { customerId: CUSTOMER_ID.schema, matchedBy: str } },
});

const unixMsParam = { type: 'string', pattern: '^[0-9]{1,15}$', 'x-invalid': 'Unix milliseconds' } as const;
const prefixParam = { type: 'string', minLength: 1, maxLength: 256 } as const;
const customerStatusSchema = { type: 'string', enum: ['active', 'erasure_pending', 'erased', 'merged'] } as const;

export const customerListQuerySchema = {
  type: 'object',
  properties: {
    status: customerStatusSchema,
    createdFrom: unixMsParam,
    createdTo: unixMsParam,
    emailPrefix: prefixParam,
    userIdPrefix: prefixParam,
    entitlement: { type: 'string', minLength: 1, maxLength: 128 },
    rail: railSchema,
    limit: { type: 'string', pattern: '^(?:[1-9][0-9]?|100)$', 'x-invalid': 'an integer from 1 to 100' },
    cursor: cursorParam,
  },
} as const;
export type CustomerListQueryWire = FromSchema<typeof customerListQuerySchema>;

const pageOf = <const S extends object>(item: S) =>
  ({ type: 'object', required: ['data', 'hasMore', 'nextCursor'], additionalProperties: false, properties: { data: { type: 'array', items: item }, hasMore: { type: 'boolean' }, nextCursor: strOrNull } }) as const;

const customerListRowSchema = {
  type: 'object',
  required: ['customerId', 'email', 'status', 'createdAt', 'userIds', 'rails', 'entitlements'],
  additionalProperties: false,
  properties: {
    customerId: CUSTOMER_ID.schema,
    email: strOrNull,
    status: customerStatusSchema,
    createdAt: unixTimeSchema,
    userIds: { type: 'array', items: str },
    rails: { type: 'array', items: str },
    entitlements: { type: 'array', items: { type: 'object', required: ['key', 'rail', 'validUntil'], additionalProperties: false, properties: { key: str, rail: str, validUntil: timeOrNull } } },
  },
} as const;
export const customerListResponseSchema = dataOf(pageOf(customerListRowSchema));
/** @public the dashboard page imports it (import type, dashboard-ui/). */
export type CustomerListPageWire = FromSchema<typeof customerListResponseSchema>['data'];

export const historyQuerySchema = { type: 'object', properties: { cursor: cursorParam } } as const;
export type HistoryQuery = FromSchema<typeof historyQuerySchema>;

const recentEventSchema = {
  type: 'object',
  required: ['eventId', 'name', 'level', 'timestamp', 'appId', 'platform'],
  additionalProperties: false,
  properties: { eventId: str, name: str, level: strOrNull, timestamp: unixTimeSchema, appId: str, platform: platformSchema },
} as const;
/** @public the dashboard page imports it (import type, dashboard-ui/). */
export type RecentEventWire = FromSchema<typeof recentEventSchema>;

export const customerAuditResponseSchema = dataOf(pageOf(publicAuditEntrySchema));
export const customerEventsResponseSchema = dataOf(pageOf(recentEventSchema));

/** A stored customer as the dashboard shows it (the record's other fields pass through). */
const customerRecordSchema = {
  type: 'object',
  required: ['customerId', 'status', 'email', 'traits', 'createdAt'],
  properties: { customerId: CUSTOMER_ID.schema, status: customerStatusSchema, email: strOrNull, traits: { type: 'object' }, createdAt: unixTimeSchema, mergedInto: str },
} as const;

const identityLinkRowSchema = {
  type: 'object',
  required: ['kind', 'id', 'assurance', 'createdAt'],
  properties: { kind: str, id: str, assurance: str, createdAt: unixTimeSchema, verifiedAt: timeOrNull },
} as const;

/** One customer as `tessera customers show` sees it (identity/inspect.ts). */
const inspectionFields = {
  customer: customerRecordSchema,
  identityLinks: { type: 'array', items: identityLinkRowSchema },
  entitlements: { type: 'array', items: publicEntitlementSchema },
  openConflicts: { type: 'array', items: str },
} as const;
const inspectionSchema = { type: 'object', required: ['customer', 'identityLinks', 'entitlements', 'openConflicts'], additionalProperties: false, properties: inspectionFields } as const;

const grantRowSchema = {
  type: 'object',
  required: ['grantId', 'entitlementKey', 'source', 'validUntil', 'revokedAt', 'createdAt'],
  properties: {
    grantId: str,
    entitlementKey: str,
    source: { type: 'object', required: ['rail', 'productId'], properties: { rail: railSchema, productId: str } },
    validUntil: timeOrNull,
    revokedAt: timeOrNull,
    createdAt: unixTimeSchema,
  },
} as const;

export const customerResponseSchema = dataOf({
  type: 'object',
  required: ['customer', 'identityLinks', 'entitlements', 'openConflicts', 'grants', 'audit', 'auditNextCursor', 'recentEvents', 'eventsNextCursor'],
  additionalProperties: false,
  properties: {
    ...inspectionFields,
    grants: { type: 'array', items: grantRowSchema },
    audit: { type: 'array', items: publicAuditEntrySchema },
    auditNextCursor: strOrNull,
    recentEvents: { type: 'array', items: recentEventSchema },
    eventsNextCursor: strOrNull,
  },
});
/** @public the dashboard page imports it (import type, dashboard-ui/). */
export type CustomerView = FromSchema<typeof customerResponseSchema>['data'];

/** The answer of the dashboard's grant and revoke: the grant, and the audit entry that records it. */
export const grantChangeResponseSchema = dataOf({
  type: 'object',
  required: ['grant', 'auditEventId', 'decision'],
  additionalProperties: false,
  properties: { grant: grantRowSchema, auditEventId: AUDIT_EVENT_ID.schema, decision: { type: 'string', enum: ['applied', 'no_op', 'rejected'] } },
});
/** @public the dashboard page imports it (import type, dashboard-ui/). */
export type GrantChange = FromSchema<typeof grantChangeResponseSchema>['data'];

/** Erasure asks the operator to type the customer id again (the page's confirmation). */
export const eraseBodySchema = { type: 'object', required: ['confirmCustomerId'], properties: { confirmCustomerId: { type: 'string', minLength: 1, maxLength: 200 } } } as const;
export type EraseBody = FromSchema<typeof eraseBodySchema>;

/** The erasure is queued (identity/forgetService.ts); `customerId` is the record erased (a merged customer's canonical one). */
export const eraseResponseSchema = dataOf({
  type: 'object',
  required: ['customerId', 'queuedAt'],
  additionalProperties: false,
  properties: { customerId: { anyOf: [{ type: 'null' }, CUSTOMER_ID.schema] }, queuedAt: unixTimeSchema },
});
/** @public the dashboard page imports it (import type, dashboard-ui/). */
export type ErasureQueued = FromSchema<typeof eraseResponseSchema>['data'];

// Conflicts ---------------------------------------------------------------------------------

export const conflictsResponseSchema = dataOf({
  type: 'array',
  items: {
    type: 'object',
    required: ['conflictId', 'canonicalCustomerId', 'otherCustomerIds', 'createdAt', 'customers'],
    properties: {
      conflictId: str,
      canonicalCustomerId: CUSTOMER_ID.schema,
      otherCustomerIds: { type: 'array', items: CUSTOMER_ID.schema },
      createdAt: unixTimeSchema,
      reason: str,
      customers: { type: 'array', items: { anyOf: [{ type: 'null' }, inspectionSchema] } },
    },
  },
});
/** @public the dashboard page imports it (import type, dashboard-ui/). */
export type ConflictRow = FromSchema<typeof conflictsResponseSchema>['data'][number];

export const identitySettingsResponseSchema = dataOf({
  type: 'object',
  required: ['providerConfigured', 'requireVerifiedIdentity', 'subscriptionTransfer'],
  additionalProperties: false,
  properties: { providerConfigured: { type: 'boolean' }, requireVerifiedIdentity: { type: 'boolean' }, subscriptionTransfer: { type: 'string', enum: ['keep', 'transfer'] } },
});
/** @public the dashboard page imports it (import type, dashboard-ui/). */
export type IdentitySettings = FromSchema<typeof identitySettingsResponseSchema>['data'];

export const conflictIdParamsSchema = { type: 'object', required: ['conflictId'], properties: { conflictId: anyPathParam } } as const;
export type ConflictIdParams = FromSchema<typeof conflictIdParamsSchema>;

export const resolveConflictBodySchema = { type: 'object', required: ['decision'], properties: { decision: { type: 'string', enum: ['merge', 'keep_separate'] } } } as const;
export type ResolveConflictBody = FromSchema<typeof resolveConflictBodySchema>;

/** identity/conflicts.ts's MergeReport. */
export const resolveConflictResponseSchema = dataOf({
  type: 'object',
  required: ['conflictId', 'decision', 'canonicalCustomerId', 'mergedCustomerIds', 'movedIdentities', 'movedGrants', 'auditEventId'],
  additionalProperties: false,
  properties: {
    conflictId: str,
    decision: { type: 'string', enum: ['merged', 'kept_separate'] },
    canonicalCustomerId: CUSTOMER_ID.schema,
    mergedCustomerIds: { type: 'array', items: CUSTOMER_ID.schema },
    movedIdentities: count,
    movedGrants: count,
    auditEventId: auditEventIdOrNull,
  },
});
/** @public the dashboard page imports it (import type, dashboard-ui/). */
export type ConflictResolution = FromSchema<typeof resolveConflictResponseSchema>['data'];

// Rails -------------------------------------------------------------------------------------

const secretRef = { type: 'string', minLength: 1, maxLength: 300 } as const;

export const stripeRailBodySchema = { type: 'object', required: ['secretKeyRef', 'webhookSecretRef'], properties: { secretKeyRef: secretRef, webhookSecretRef: secretRef } } as const;
export type StripeRailBody = FromSchema<typeof stripeRailBodySchema>;

export const appleRailBodySchema = {
  type: 'object',
  required: ['bundleId'],
  properties: {
    bundleId: { type: 'string', minLength: 1, maxLength: 155 },
    appAppleId: { type: ['integer', 'null'], minimum: 1 },
    rootCertificates: { type: ['array', 'null'], maxItems: 5, items: { type: 'string', minLength: 1, maxLength: 20_000 } },
  },
} as const;
export type AppleRailBody = FromSchema<typeof appleRailBodySchema>;

export const googleRailBodySchema = {
  type: 'object',
  required: ['packageName', 'serviceAccountRef'],
  properties: {
    packageName: { type: 'string', minLength: 1, maxLength: 255 },
    serviceAccountRef: secretRef,
    pushAudience: { type: ['string', 'null'], minLength: 1, maxLength: 500 },
    pushServiceAccountEmail: { type: ['string', 'null'], minLength: 3, maxLength: 320 },
  },
} as const;
export type GoogleRailBody = FromSchema<typeof googleRailBodySchema>;

/** Rails as the dashboard shows them: references and certificate fingerprints only, never a secret value. */
const railsSchema = {
  type: 'object',
  required: ['projectId', 'env', 'stripe', 'apple', 'google', 'secretIds', 'webhooks', 'updatedAt'],
  additionalProperties: false,
  properties: {
    projectId: str,
    env: envSchema,
    stripe: { anyOf: [{ type: 'null' }, { type: 'object', required: ['secretKeyRef', 'webhookSecretRef'], additionalProperties: false, properties: { secretKeyRef: str, webhookSecretRef: str } }] },
    apple: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          required: ['bundleId', 'appAppleId', 'rootCertificates', 'verifies'],
          properties: {
            bundleId: str,
            appAppleId: timeOrNull,
            rootCertificates: {
              type: 'array',
              items: {
                anyOf: [
                  { type: 'object', required: ['subject', 'sha256', 'validTo'], properties: { subject: str, sha256: str, validTo: str } },
                  { type: 'object', required: ['invalid'], properties: { invalid: { const: true } } },
                ],
              },
            },
            verifies: { type: 'array', items: str },
          },
        },
      ],
    },
    google: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          required: ['packageName', 'serviceAccountRef', 'pushAudience', 'pushServiceAccountEmail'],
          additionalProperties: false,
          properties: { packageName: str, serviceAccountRef: str, pushAudience: strOrNull, pushServiceAccountEmail: strOrNull },
        },
      ],
    },
    secretIds: { type: 'object', additionalProperties: false, properties: { stripeSecretKey: strOrNull, stripeWebhookSecret: strOrNull, googleServiceAccount: strOrNull } },
    webhooks: { type: 'object', additionalProperties: str },
    updatedAt: timeOrNull,
  },
} as const;
export const railsResponseSchema = dataOf(railsSchema);
/** @public the dashboard page imports it (import type, dashboard-ui/). */
export type RailsView = FromSchema<typeof railsResponseSchema>['data'];

export const setRailResponseSchema = dataOf({ type: 'object', required: ['rails', 'auditEventId'], additionalProperties: false, properties: { rails: railsSchema, auditEventId: AUDIT_EVENT_ID.schema } });

// Audit and errors --------------------------------------------------------------------------

export const auditEventParamsSchema = {
  type: 'object',
  required: ['eventId'],
  properties: { eventId: { ...AUDIT_EVENT_ID.schema, 'x-message': { pattern: 'Not an audit event id.' } } },
} as const;
export type DashboardAuditParams = FromSchema<typeof auditEventParamsSchema>;

export const auditEntryResponseSchema = dataOf(publicAuditEntrySchema);

export const errorsQuerySchema = { type: 'object', properties: { days: daysParam, cursor: { type: 'string', minLength: 1, maxLength: 500 } } } as const;
export type DashboardErrorsQuery = FromSchema<typeof errorsQuerySchema>;

export const errorGroupsResponseSchema = dataOf(errorsReportSchema);

export const fingerprintParamsSchema = {
  type: 'object',
  required: ['fingerprint'],
  properties: { fingerprint: { ...ERROR_FINGERPRINT.schema, 'x-message': { pattern: 'Not an error fingerprint (32 hex characters).' } } },
} as const;
export type DashboardFingerprintParams = FromSchema<typeof fingerprintParamsSchema>;

export const errorGroupResponseSchema = dataOf(errorGroupDetailSchema);

export const releaseParamsSchema = {
  type: 'object',
  required: ['release'],
  properties: { release: { ...RELEASE.schema, 'x-message': { pattern: 'A release is 1–64 characters: letters, digits, `.`, `_` or `-`.' } } },
} as const;
export type ReleaseParams = FromSchema<typeof releaseParamsSchema>;

export const releaseSourceMapsResponseSchema = dataOf({
  type: 'array',
  items: {
    type: 'object',
    required: ['fileUrl', 'fileUrlHash', 'contentHash', 'byteLength', 'uploadedAt', 'uploadedByKeyId'],
    additionalProperties: false,
    properties: { fileUrl: str, fileUrlHash: str, contentHash: str, byteLength: count, uploadedAt: unixTimeSchema, uploadedByKeyId: strOrNull },
  },
});
/** @public the dashboard page imports it (import type, dashboard-ui/). */
export type SourceMapInfo = FromSchema<typeof releaseSourceMapsResponseSchema>['data'][number];

// Webhook endpoints -------------------------------------------------------------------------

const eventTypesParam = { type: ['array', 'null'], maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 64 } } as const;

export const createEndpointBodySchema = { type: 'object', required: ['url'], properties: { url: { type: 'string', minLength: 1, maxLength: 2048 }, eventTypes: eventTypesParam } } as const;
export type CreateEndpointBody = FromSchema<typeof createEndpointBodySchema>;

export const updateEndpointBodySchema = { type: 'object', properties: { url: { type: ['string', 'null'], minLength: 1, maxLength: 2048 }, eventTypes: eventTypesParam } } as const;
export type UpdateEndpointBody = FromSchema<typeof updateEndpointBodySchema>;

export const disableEndpointBodySchema = { type: 'object', properties: { note: { type: ['string', 'null'], maxLength: 500 } } } as const;
export type DisableEndpointBody = FromSchema<typeof disableEndpointBodySchema>;

export const endpointIdParamsSchema = { type: 'object', required: ['endpointId'], properties: { endpointId: anyPathParam } } as const;
export type EndpointIdParams = FromSchema<typeof endpointIdParamsSchema>;

export const deliveriesQuerySchema = { type: 'object', properties: { event: { type: 'string', minLength: 1, maxLength: 128 } } } as const;
export type DeliveriesQuery = FromSchema<typeof deliveriesQuerySchema>;

export const replayBodySchema = { type: 'object', properties: { endpointId: { type: ['string', 'null'], minLength: 1, maxLength: 128 } } } as const;
export type ReplayBody = FromSchema<typeof replayBodySchema>;

export const webhookEventParamsSchema = {
  type: 'object',
  required: ['eventId'],
  properties: { eventId: { ...WEBHOOK_EVENT_ID.schema, 'x-message': { pattern: 'Not a webhook event id (evt_…).' } } },
} as const;
export type WebhookEventParams = FromSchema<typeof webhookEventParamsSchema>;

const endpointViewSchema = {
  type: 'object',
  required: ['endpointId', 'projectId', 'env', 'url', 'eventTypes', 'allEventTypes', 'enabled', 'disabled', 'failingSince', 'createdAt', 'updatedAt', 'secretGeneration', 'previousSecret'],
  additionalProperties: false,
  properties: {
    endpointId: str,
    projectId: str,
    env: envSchema,
    url: str,
    eventTypes: { type: 'array', items: str },
    allEventTypes: { type: 'boolean' },
    enabled: { type: 'boolean' },
    disabled: {
      anyOf: [
        { type: 'null' },
        { type: 'object', required: ['reason', 'note', 'at'], additionalProperties: false, properties: { reason: { type: 'string', enum: ['operator', 'gone', 'failing'] }, note: strOrNull, at: unixTimeSchema } },
      ],
    },
    failingSince: timeOrNull,
    createdAt: unixTimeSchema,
    updatedAt: unixTimeSchema,
    secretGeneration: count,
    previousSecret: { anyOf: [{ type: 'null' }, { type: 'object', required: ['generation', 'expiresAt'], additionalProperties: false, properties: { generation: count, expiresAt: unixTimeSchema } }] },
  },
} as const;
/** @public the dashboard page imports it (import type, dashboard-ui/). */
export type EndpointViewWire = FromSchema<typeof endpointViewSchema>;

export const webhookEndpointsResponseSchema = dataOf({ type: 'array', items: endpointViewSchema });

/** The signing secret is in the answer of the change that mints it only (create, rotate). */
export const createEndpointResponseSchema = dataOf({
  type: 'object',
  required: ['endpoint', 'secret', 'auditEventId'],
  additionalProperties: false,
  properties: { endpoint: endpointViewSchema, secret: str, auditEventId },
});
/** @public the dashboard page imports it (import type, dashboard-ui/). */
export type CreatedEndpoint = FromSchema<typeof createEndpointResponseSchema>['data'];

/** The answer of update, disable and enable: the endpoint as it now is. */
export const endpointChangeResponseSchema = dataOf({
  type: 'object',
  required: ['endpoint', 'auditEventId'],
  additionalProperties: false,
  properties: { endpoint: endpointViewSchema, auditEventId },
});
/** @public the dashboard page imports it (import type, dashboard-ui/). */
export type EndpointChange = FromSchema<typeof endpointChangeResponseSchema>['data'];

/** `secretsNotRemoved`: the secret references the secret store could not delete (named so the operator can remove them by hand). */
export const deleteEndpointResponseSchema = dataOf({
  type: 'object',
  required: ['endpointId', 'deleted', 'auditEventId', 'secretsRemoved', 'secretsNotRemoved'],
  additionalProperties: false,
  properties: { endpointId: str, deleted: { const: true }, auditEventId, secretsRemoved: count, secretsNotRemoved: { type: 'array', items: str } },
});
/** @public the dashboard page imports it (import type, dashboard-ui/). */
export type DeletedEndpoint = FromSchema<typeof deleteEndpointResponseSchema>['data'];

export const rotateSecretResponseSchema = dataOf({
  type: 'object',
  required: ['endpoint', 'secret', 'previousSecretExpiresAt', 'auditEventId'],
  additionalProperties: false,
  properties: { endpoint: endpointViewSchema, secret: str, previousSecretExpiresAt: unixTimeSchema, auditEventId },
});
/** @public the dashboard page imports it (import type, dashboard-ui/). */
export type RotatedSecret = FromSchema<typeof rotateSecretResponseSchema>['data'];

const deliverySchema = {
  type: 'object',
  required: ['deliveryId', 'eventId', 'eventType', 'replay', 'state', 'attempts', 'attemptCount', 'nextRetryAt', 'createdAt'],
  properties: {
    deliveryId: str,
    eventId: str,
    eventType: str,
    replay: strOrNull,
    state: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
    attempts: {
      type: 'array',
      items: {
        type: 'object',
        required: ['attempt', 'at', 'statusCode', 'latencyMs', 'error', 'errorDetail'],
        properties: { attempt: count, at: unixTimeSchema, statusCode: timeOrNull, latencyMs: { type: 'number' }, error: strOrNull, errorDetail: strOrNull },
      },
    },
    attemptCount: count,
    nextRetryAt: timeOrNull,
    createdAt: unixTimeSchema,
  },
} as const;
/** @public the dashboard page imports it (import type, dashboard-ui/). */
export type DeliveryRow = FromSchema<typeof deliverySchema>;

export const deliveriesResponseSchema = dataOf({ type: 'array', items: deliverySchema });

export const testEventResponseSchema = dataOf({
  type: 'object',
  required: ['eventId', 'endpointId', 'deliveryId', 'auditEventId'],
  additionalProperties: false,
  properties: { eventId: WEBHOOK_EVENT_ID.schema, endpointId: str, deliveryId: str, auditEventId: AUDIT_EVENT_ID.schema },
});
/** @public the dashboard page imports it (import type, dashboard-ui/). */
export type TestEventSent = FromSchema<typeof testEventResponseSchema>['data'];

export const replayResponseSchema = dataOf({
  type: 'object',
  required: ['eventId', 'replay', 'deliveries', 'auditEventId'],
  additionalProperties: false,
  properties: {
    eventId: WEBHOOK_EVENT_ID.schema,
    replay: str,
    deliveries: { type: 'array', items: { type: 'object', required: ['endpointId', 'deliveryId'], additionalProperties: false, properties: { endpointId: str, deliveryId: str } } },
    auditEventId: AUDIT_EVENT_ID.schema,
  },
});
/** @public the dashboard page imports it (import type, dashboard-ui/). */
export type ReplayQueued = FromSchema<typeof replayResponseSchema>['data'];
