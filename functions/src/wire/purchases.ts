import type { FromSchema } from 'json-schema-to-ts';
import { APP_ACCOUNT_TOKEN, CUSTOMER_ID } from '../ids';
import { publicEntitlementSchema, wireEnvSchema } from './common';

/** `POST /v1/purchases/sync` (legacy `/v1/purchases`): App Store transactions only. */

const JWS = '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$';

export const syncBodySchema = {
  type: 'object',
  required: ['rail', 'signedTransactionInfo'],
  properties: {
    rail: {
      type: 'string',
      const: 'apple',
      'x-invalid': 'only `apple` is synced here; Stripe and Google Play purchases arrive through their webhooks, /v1/webhooks/stripe/{projectId} and /v1/webhooks/google/{projectId}',
    },
    signedTransactionInfo: { type: 'string', minLength: 1, maxLength: 32768, pattern: JWS },
    signedRenewalInfo: { type: ['string', 'null'], minLength: 1, maxLength: 32768, pattern: JWS },
    appAccountToken: { type: ['string', 'null'], pattern: APP_ACCOUNT_TOKEN.schema.pattern },
    // Accepted for older SDKs, not used: the verified transaction says its environment.
    environment: { type: ['string', 'null'] },
  },
} as const;
export type SyncBody = FromSchema<typeof syncBodySchema>;

/**
 * The `200` body. `serviceCustomerId` is `""` when the caller may not learn the owner (a
 * family-shared transaction); `idempotent_replay` only on a replay of the same request.
 */
export const purchaseResultSchema = {
  type: 'object',
  required: ['object', 'serviceCustomerId', 'env', 'entitlements'],
  additionalProperties: false,
  properties: {
    object: { const: 'purchase_result' },
    serviceCustomerId: { anyOf: [CUSTOMER_ID.schema, { const: '' }] },
    env: wireEnvSchema,
    entitlements: { type: 'array', items: publicEntitlementSchema },
    idempotent_replay: { const: true },
  },
} as const;
export type PurchaseResult = FromSchema<typeof purchaseResultSchema>;
