import type { JSONSchemaType } from 'ajv';
import { route } from '../../http/route';
import { dispatchWebhookEvents } from '../../webhooks/dispatch';
import { ENTITLEMENT_KEY_PATTERN } from '../catalog';
import { requireCustomerIdParam } from '../customerIds';
import { revokeManually } from '../manualGrants';
import { mutationResponse } from './mutationResponse';
import type { TaskQueue } from '../../tasks/queue';

/** `POST /v1/server/customers/{customerId}/revoke`: revokes a manual grant, audited in the same transaction. */
export interface RevokeBody {
  entitlementKey: string;
  reason: string;
}

export const revokeBodySchema: JSONSchemaType<RevokeBody> = {
  type: 'object',
  required: ['entitlementKey', 'reason'],
  properties: {
    entitlementKey: { type: 'string', pattern: ENTITLEMENT_KEY_PATTERN },
    // Required: at least one visible character, at most 500.
    reason: { type: 'string', minLength: 1, maxLength: 500, pattern: '\\S' },
  },
};

export const revokeRoute = route<RevokeBody, Record<string, string>, { tasks: TaskQueue }>({
  method: 'POST',
  path: '/v1/server/customers/:customerId/revoke',
  key: 'secret',
  body: revokeBodySchema,
  cacheControl: 'no-store',
  handler: async (ctx) => {
    const customerId = requireCustomerIdParam(ctx.params.customerId);
    const now = ctx.deps.clock.now();
    const outcome = await revokeManually(
      ctx.scope,
      { customerId, entitlementKey: ctx.body.entitlementKey, reason: ctx.body.reason },
      { requestId: ctx.requestId, keyId: ctx.auth.keyId },
      now,
    );
    await dispatchWebhookEvents(ctx.deps.tasks, ctx.scope, outcome.webhookEventIds);
    return mutationResponse(ctx, 'revoke', customerId, outcome, now);
  },
});
