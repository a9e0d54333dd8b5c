import type { FromSchema } from 'json-schema-to-ts';
import { AUDIT_EVENT_ID, CUSTOMER_ID, ENTITLEMENT_KEY } from '../ids';
import { anyPathParam, publicEntitlementSchema, railSchema, unixTimeSchema, wireEnvSchema } from './common';

/** The server endpoints (secret keys): one customer's entitlements, manual grant and revoke, one audit entry. */

const CUSTOMER_ID_RULE = 'customerId must start with `cdcust_`.';

/** `{customerId}` of the server and dashboard customer paths: `400 invalid_customer` unless it is a customer id. */
export const customerIdParamsSchema = {
  type: 'object',
  required: ['customerId'],
  properties: {
    customerId: { ...CUSTOMER_ID.schema, 'x-code': 'invalid_customer', 'x-message': { pattern: CUSTOMER_ID_RULE } },
  },
} as const;
export type CustomerIdParams = FromSchema<typeof customerIdParamsSchema>;

const grantDurationSchema = { type: 'string', enum: ['P30D', 'P90D', 'P1Y', 'lifetime'] } as const;

/** `POST /v1/server/customers/{customerId}/grant` (and the dashboard's grant: same body and rules). */
export const grantBodySchema = {
  type: 'object',
  required: ['entitlementKey', 'duration', 'reason'],
  properties: {
    entitlementKey: ENTITLEMENT_KEY.schema,
    duration: grantDurationSchema,
    reason: { type: 'string', minLength: 20, maxLength: 500 },
  },
} as const;
export type GrantBody = FromSchema<typeof grantBodySchema>;

/** `POST /v1/server/customers/{customerId}/revoke`: the reason has at least one visible character, at most 500. */
export const revokeBodySchema = {
  type: 'object',
  required: ['entitlementKey', 'reason'],
  properties: {
    entitlementKey: ENTITLEMENT_KEY.schema,
    reason: { type: 'string', minLength: 1, maxLength: 500, pattern: '\\S' },
  },
} as const;
export type RevokeBody = FromSchema<typeof revokeBodySchema>;

/** The `entitlement_mutation` answer of grant and revoke (the audit entry's id travels in a header). */
export const mutationResponseSchema = {
  type: 'object',
  required: ['object', 'action', 'serviceCustomerId', 'entitlement', 'env'],
  additionalProperties: false,
  properties: {
    object: { const: 'entitlement_mutation' },
    action: { type: 'string', enum: ['grant', 'revoke'] },
    serviceCustomerId: CUSTOMER_ID.schema,
    entitlement: publicEntitlementSchema,
    env: wireEnvSchema,
  },
} as const;
export type MutationResponse = FromSchema<typeof mutationResponseSchema>;

/** `GET /v1/server/customers/{customerId}/entitlements`: the public read's list, for a known customer. */
export const serverEntitlementsResponseSchema = {
  type: 'object',
  required: ['object', 'data', 'serviceCustomerId', 'env'],
  additionalProperties: false,
  properties: {
    object: { const: 'list' },
    data: { type: 'array', items: publicEntitlementSchema },
    serviceCustomerId: CUSTOMER_ID.schema,
    env: wireEnvSchema,
  },
} as const;
export type ServerEntitlementsResponse = FromSchema<typeof serverEntitlementsResponseSchema>;

/** `{eventId}` of the audit read: an unknown or malformed id is the same `400 invalid_param_value`, checked in the handler. */
export const auditEventParamsSchema = {
  type: 'object',
  required: ['eventId'],
  properties: { eventId: anyPathParam },
} as const;
export type AuditEventParams = FromSchema<typeof auditEventParamsSchema>;

/**
 * An audit entry as the API shows it: the spec's fields (`eventId`, `rail`, `env`, `eventType`,
 * `projectId`, `customerId`, `decision`, `reason`) and the ones decisions.md adds; times in Unix
 * ms, `expiresAt` when the TTL policy removes the entry.
 */
export const publicAuditEntrySchema = {
  type: 'object',
  required: ['eventId', 'rail', 'env', 'eventType', 'projectId', 'customerId', 'subscriptionId', 'decision', 'reason', 'fromState', 'toState', 'signatureVerified', 'reconciledWithProvider', 'rawEventReceivedAt', 'processedAt', 'expiresAt', 'details'],
  additionalProperties: false,
  properties: {
    eventId: AUDIT_EVENT_ID.schema,
    rail: railSchema,
    env: wireEnvSchema,
    eventType: { type: 'string' },
    projectId: { type: 'string' },
    customerId: { type: ['string', 'null'] },
    subscriptionId: { type: ['string', 'null'] },
    decision: { type: 'string', enum: ['applied', 'no_op', 'rejected'] },
    reason: { type: 'string' },
    fromState: { type: ['string', 'null'] },
    toState: { type: ['string', 'null'] },
    signatureVerified: { type: 'boolean' },
    reconciledWithProvider: { type: 'boolean' },
    rawEventReceivedAt: unixTimeSchema,
    processedAt: unixTimeSchema,
    expiresAt: { type: ['integer', 'null'] },
    details: { type: 'object' },
  },
} as const;
export type PublicAuditEntry = FromSchema<typeof publicAuditEntrySchema>;

/** `GET /v1/server/audit/{eventId}`. */
export const auditEntryResponseSchema = {
  type: 'object',
  required: ['object', 'data'],
  additionalProperties: false,
  properties: { object: { const: 'audit_entry' }, data: publicAuditEntrySchema },
} as const;
export type AuditEntryResponse = FromSchema<typeof auditEntryResponseSchema>;
