import { route } from '../../http/route';
import { dispatchWebhookEvents } from '../../webhooks/dispatch';
import { customerIdParamsSchema, grantBodySchema, mutationResponseSchema, type CustomerIdParams, type GrantBody, type MutationResponse } from '../../wire/entitlements';
import { grantManually } from '../manualGrants';
import { mutationResponse } from './mutationResponse';
import type { TaskQueue } from '../../tasks/queue';

/** `POST /v1/server/customers/{customerId}/grant`: a manual grant, audited in the same transaction. */
export const grantRoute = route<GrantBody, Record<string, string>, CustomerIdParams, MutationResponse, { tasks: TaskQueue }>({
  method: 'POST',
  path: '/v1/server/customers/:customerId/grant',
  key: 'secret',
  body: grantBodySchema,
  params: customerIdParamsSchema,
  response: mutationResponseSchema,
  cacheControl: 'no-store',
  handler: async (ctx) => {
    const { customerId } = ctx.params;
    const now = ctx.deps.clock.now();
    const outcome = await grantManually(
      ctx.scope,
      { customerId, entitlementKey: ctx.body.entitlementKey, duration: ctx.body.duration, reason: ctx.body.reason },
      { requestId: ctx.requestId, keyId: ctx.auth.keyId },
      now,
    );
    await dispatchWebhookEvents(ctx.deps.tasks, ctx.scope, outcome.webhookFanouts);
    return mutationResponse(ctx, 'grant', customerId, outcome, now);
  },
});
