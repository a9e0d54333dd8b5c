import type { FromSchema } from 'json-schema-to-ts';
import { PROJECT_ID } from '../ids';
import { wireEnvSchema } from './common';

/**
 * Inbound rail notifications (`/v1/webhooks/{stripe,apple,google}/{projectId}`; paths and
 * payloads not shown by the spec). Bodies are read raw and verified by each rail's handler;
 * only the path parameter and the answer are described here.
 */
export const webhookParamsSchema = {
  type: 'object',
  required: ['projectId'],
  properties: { projectId: { ...PROJECT_ID.schema, 'x-message': { pattern: 'Unknown project.' } } },
} as const;
export type WebhookParams = FromSchema<typeof webhookParamsSchema>;

/** The answer once a decision is durably recorded (applied, no-op or duplicate), so the rail stops retrying. */
export const railNotificationResponseSchema = {
  type: 'object',
  required: ['object', 'eventId', 'env', 'decision', 'reason', 'duplicate'],
  additionalProperties: false,
  properties: {
    object: { const: 'rail_notification' },
    eventId: { type: 'string' },
    env: wireEnvSchema,
    decision: { type: 'string', enum: ['applied', 'no_op', 'rejected'] },
    reason: { type: 'string' },
    duplicate: { type: 'boolean' },
  },
} as const;
export type RailNotificationResponse = FromSchema<typeof railNotificationResponseSchema>;
