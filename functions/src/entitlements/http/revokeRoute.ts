import { route } from '../../http/route';
import { dispatchWebhookEvents } from '../../webhooks/dispatch';
import { customerIdParamsSchema, mutationResponseSchema, revokeBodySchema, type CustomerIdParams, type MutationResponse, type RevokeBody } from '../../wire/entitlements';
import { revokeManually } from '../manualGrants';
import { mutationResponse } from './mutationResponse';
import type { TaskQueue } from '../../tasks/queue';

/** `POST /v1/server/customers/{customerId}/revoke`: revokes a manual grant, audited in the same transaction. */
export const revokeRoute = route<RevokeBody, Record<string, string>, CustomerIdParams, MutationResponse, { tasks: TaskQueue }>({
  method: 'POST',
  path: '/v1/server/customers/:customerId/revoke',
  key: 'secret',
  body: revokeBodySchema,
  params: customerIdParamsSchema,
  response: mutationResponseSchema,
  cacheControl: 'no-store',
  handler: async (ctx) => {
    const { customerId } = ctx.params;
    const now = ctx.deps.clock.now();
    const outcome = await revokeManually(
      ctx.scope,
      { customerId, entitlementKey: ctx.body.entitlementKey, reason: ctx.body.reason },
      { requestId: ctx.requestId, keyId: ctx.auth.keyId },
      now,
    );
    await dispatchWebhookEvents(ctx.deps.tasks, ctx.scope, outcome.webhookFanouts);
    return mutationResponse(ctx, 'revoke', customerId, outcome, now);
  },
});
