import type { JSONSchemaType } from 'ajv';
import { route } from '../../http/route';
import { dispatchWebhookEvents } from '../../webhooks/dispatch';
import { ENTITLEMENT_KEY_PATTERN } from '../catalog';
import { requireCustomerIdParam } from '../customerIds';
import { GRANT_DURATIONS, type GrantDuration } from '../durations';
import { grantManually } from '../manualGrants';
import { mutationResponse } from './mutationResponse';
import type { TaskQueue } from '../../tasks/queue';

/** `POST /v1/server/customers/{customerId}/grant`: a manual grant, audited in the same transaction. */
export interface GrantBody {
  entitlementKey: string;
  duration: GrantDuration;
  reason: string;
}

export const grantBodySchema: JSONSchemaType<GrantBody> = {
  type: 'object',
  required: ['entitlementKey', 'duration', 'reason'],
  properties: {
    entitlementKey: { type: 'string', pattern: ENTITLEMENT_KEY_PATTERN },
    duration: { type: 'string', enum: [...GRANT_DURATIONS] },
    reason: { type: 'string', minLength: 20, maxLength: 500 },
  },
};

export const grantRoute = route<GrantBody, Record<string, string>, { tasks: TaskQueue }>({
  method: 'POST',
  path: '/v1/server/customers/:customerId/grant',
  key: 'secret',
  body: grantBodySchema,
  cacheControl: 'no-store',
  handler: async (ctx) => {
    const customerId = requireCustomerIdParam(ctx.params.customerId);
    const now = ctx.deps.clock.now();
    const outcome = await grantManually(
      ctx.scope,
      { customerId, entitlementKey: ctx.body.entitlementKey, duration: ctx.body.duration, reason: ctx.body.reason },
      { requestId: ctx.requestId, keyId: ctx.auth.keyId },
      now,
    );
    await dispatchWebhookEvents(ctx.deps.tasks, ctx.scope, outcome.webhookEventIds);
    return mutationResponse(ctx, 'grant', customerId, outcome, now);
  },
});
