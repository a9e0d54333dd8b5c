import type { JSONSchemaType } from 'ajv';
import { invalidParam } from '../../http/errors';
import { GRACES, graceBodySchema, type GraceBody } from './grace';
import { dashboardRoute, IN_PROJECT, NO_STORE, reply } from './paths';

/**
 * Webhook endpoints of the path's environment (webhooks/endpoints.ts and webhooks/operator.ts,
 * as the CLI): list, register (the signing secret shown once), edit (URL, event types), delete
 * (with its secrets), disable, enable, rotate the secret with a grace; an endpoint's deliveries
 * with every attempt's status; send a test event; replay an event.
 */

export const webhookEndpointsRoute = dashboardRoute({
  method: 'GET',
  path: `${IN_PROJECT}/webhooks`,
  key: 'operator',
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.webhookEndpoints()),
});

export interface CreateEndpointBody {
  url: string;
  eventTypes?: string[];
}

export const createEndpointSchema: JSONSchemaType<CreateEndpointBody> = {
  type: 'object',
  required: ['url'],
  properties: {
    url: { type: 'string', minLength: 1, maxLength: 2048 },
    eventTypes: { type: 'array', nullable: true, maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 64 } },
  },
};

export const createEndpointRoute = dashboardRoute<CreateEndpointBody>({
  method: 'POST',
  path: `${IN_PROJECT}/webhooks`,
  key: 'operator',
  body: createEndpointSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.createWebhookEndpoint(ctx.body.url, ctx.body.eventTypes ?? [])),
});

export interface UpdateEndpointBody {
  url?: string;
  eventTypes?: string[];
}

export const updateEndpointSchema: JSONSchemaType<UpdateEndpointBody> = {
  type: 'object',
  required: [],
  properties: {
    url: { type: 'string', nullable: true, minLength: 1, maxLength: 2048 },
    eventTypes: { type: 'array', nullable: true, maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 64 } },
  },
};

export const updateEndpointRoute = dashboardRoute<UpdateEndpointBody>({
  method: 'POST',
  path: `${IN_PROJECT}/webhooks/:endpointId/update`,
  key: 'operator',
  body: updateEndpointSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.updateWebhookEndpoint(ctx.params.endpointId ?? '', { url: ctx.body.url, eventTypes: ctx.body.eventTypes })),
});

export const deleteEndpointRoute = dashboardRoute({
  method: 'DELETE',
  path: `${IN_PROJECT}/webhooks/:endpointId`,
  key: 'operator',
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.deleteWebhookEndpoint(ctx.params.endpointId ?? '')),
});

export interface DisableBody {
  note?: string | null;
}

export const disableSchema: JSONSchemaType<DisableBody> = {
  type: 'object',
  required: [],
  properties: { note: { type: 'string', nullable: true, maxLength: 500 } },
};

export const disableEndpointRoute = dashboardRoute<DisableBody>({
  method: 'POST',
  path: `${IN_PROJECT}/webhooks/:endpointId/disable`,
  key: 'operator',
  body: disableSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.disableWebhookEndpoint(ctx.params.endpointId ?? '', ctx.body.note ?? null)),
});

export const enableEndpointRoute = dashboardRoute({
  method: 'POST',
  path: `${IN_PROJECT}/webhooks/:endpointId/enable`,
  key: 'operator',
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.enableWebhookEndpoint(ctx.params.endpointId ?? '')),
});

export const rotateSecretRoute = dashboardRoute<GraceBody>({
  method: 'POST',
  path: `${IN_PROJECT}/webhooks/:endpointId/rotate-secret`,
  key: 'operator',
  body: graceBodySchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.rotateWebhookSecret(ctx.params.endpointId ?? '', GRACES[ctx.body.grace])),
});

export interface DeliveriesQuery {
  event?: string;
}

export const deliveriesQuerySchema: JSONSchemaType<DeliveriesQuery> = {
  type: 'object',
  required: [],
  properties: { event: { type: 'string', nullable: true, minLength: 1, maxLength: 128 } },
};

export const deliveriesRoute = dashboardRoute<unknown, DeliveriesQuery>({
  method: 'GET',
  path: `${IN_PROJECT}/webhooks/:endpointId/deliveries`,
  key: 'operator',
  query: deliveriesQuerySchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.webhookDeliveries(ctx.params.endpointId ?? '', ctx.query.event ?? null)),
});

export const sendTestEventRoute = dashboardRoute({
  method: 'POST',
  path: `${IN_PROJECT}/webhooks/:endpointId/test`,
  key: 'operator',
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.sendWebhookTestEvent(ctx.params.endpointId ?? '')),
});

export interface ReplayBody {
  /** Only this endpoint; absent: every enabled endpoint that receives the event. */
  endpointId?: string | null;
}

export const replaySchema: JSONSchemaType<ReplayBody> = {
  type: 'object',
  required: [],
  properties: { endpointId: { type: 'string', nullable: true, minLength: 1, maxLength: 128 } },
};

export const replayRoute = dashboardRoute<ReplayBody>({
  method: 'POST',
  path: `${IN_PROJECT}/webhook-events/:eventId/replay`,
  key: 'operator',
  body: replaySchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => {
    const eventId = ctx.params.eventId ?? '';
    if (!/^evt_[A-Za-z0-9_-]{1,100}$/.test(eventId)) throw invalidParam('Not a webhook event id (evt_…).');
    return reply(await ctx.operator.console.replayWebhookEvent(eventId, ctx.body.endpointId ?? null));
  },
});
