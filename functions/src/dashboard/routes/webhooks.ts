import {
  createEndpointBodySchema,
  createEndpointResponseSchema,
  deleteEndpointResponseSchema,
  deliveriesQuerySchema,
  deliveriesResponseSchema,
  disableEndpointBodySchema,
  endpointChangeResponseSchema,
  endpointIdParamsSchema,
  graceBodySchema,
  replayBodySchema,
  replayResponseSchema,
  rotateSecretResponseSchema,
  testEventResponseSchema,
  updateEndpointBodySchema,
  webhookEndpointsResponseSchema,
  webhookEventParamsSchema,
  type CreateEndpointBody,
  type DeliveriesQuery,
  type DisableEndpointBody,
  type EndpointIdParams,
  type GraceBody,
  type ReplayBody,
  type UpdateEndpointBody,
  type WebhookEventParams,
} from '../../wire/dashboard';
import { GRACES } from './grace';
import { dashboardRoute, IN_PROJECT, NO_STORE, reply } from './paths';

/**
 * Webhook endpoints of the path's environment (webhooks/endpoints.ts and webhooks/operator.ts,
 * as the CLI): list, register (the signing secret shown once), edit (URL, event types), delete
 * (with its secrets), disable, enable, rotate the secret with a grace; an endpoint's deliveries
 * with every attempt's status; send a test event; replay an event. Endpoint ids are checked by
 * the services (webhooks/locate.ts), as for the CLI.
 */

export const webhookEndpointsRoute = dashboardRoute({
  method: 'GET',
  path: `${IN_PROJECT}/webhooks`,
  key: 'operator',
  response: webhookEndpointsResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.webhookEndpoints()),
});

export const createEndpointRoute = dashboardRoute<CreateEndpointBody>({
  method: 'POST',
  path: `${IN_PROJECT}/webhooks`,
  key: 'operator',
  body: createEndpointBodySchema,
  response: createEndpointResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.createWebhookEndpoint(ctx.body.url, ctx.body.eventTypes ?? [])),
});

export const updateEndpointRoute = dashboardRoute<UpdateEndpointBody, Record<string, string>, EndpointIdParams>({
  method: 'POST',
  path: `${IN_PROJECT}/webhooks/:endpointId/update`,
  key: 'operator',
  body: updateEndpointBodySchema,
  params: endpointIdParamsSchema,
  response: endpointChangeResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.updateWebhookEndpoint(ctx.params.endpointId, { url: ctx.body.url ?? undefined, eventTypes: ctx.body.eventTypes ?? undefined })),
});

export const deleteEndpointRoute = dashboardRoute<unknown, Record<string, string>, EndpointIdParams>({
  method: 'DELETE',
  path: `${IN_PROJECT}/webhooks/:endpointId`,
  key: 'operator',
  params: endpointIdParamsSchema,
  response: deleteEndpointResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.deleteWebhookEndpoint(ctx.params.endpointId)),
});

export const disableEndpointRoute = dashboardRoute<DisableEndpointBody, Record<string, string>, EndpointIdParams>({
  method: 'POST',
  path: `${IN_PROJECT}/webhooks/:endpointId/disable`,
  key: 'operator',
  body: disableEndpointBodySchema,
  params: endpointIdParamsSchema,
  response: endpointChangeResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.disableWebhookEndpoint(ctx.params.endpointId, ctx.body.note ?? null)),
});

export const enableEndpointRoute = dashboardRoute<unknown, Record<string, string>, EndpointIdParams>({
  method: 'POST',
  path: `${IN_PROJECT}/webhooks/:endpointId/enable`,
  key: 'operator',
  params: endpointIdParamsSchema,
  response: endpointChangeResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.enableWebhookEndpoint(ctx.params.endpointId)),
});

export const rotateSecretRoute = dashboardRoute<GraceBody, Record<string, string>, EndpointIdParams>({
  method: 'POST',
  path: `${IN_PROJECT}/webhooks/:endpointId/rotate-secret`,
  key: 'operator',
  body: graceBodySchema,
  params: endpointIdParamsSchema,
  response: rotateSecretResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.rotateWebhookSecret(ctx.params.endpointId, GRACES[ctx.body.grace])),
});

export const deliveriesRoute = dashboardRoute<unknown, DeliveriesQuery, EndpointIdParams>({
  method: 'GET',
  path: `${IN_PROJECT}/webhooks/:endpointId/deliveries`,
  key: 'operator',
  query: deliveriesQuerySchema,
  params: endpointIdParamsSchema,
  response: deliveriesResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.webhookDeliveries(ctx.params.endpointId, ctx.query.event ?? null)),
});

export const sendTestEventRoute = dashboardRoute<unknown, Record<string, string>, EndpointIdParams>({
  method: 'POST',
  path: `${IN_PROJECT}/webhooks/:endpointId/test`,
  key: 'operator',
  params: endpointIdParamsSchema,
  response: testEventResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.sendWebhookTestEvent(ctx.params.endpointId)),
});

export const replayRoute = dashboardRoute<ReplayBody, Record<string, string>, WebhookEventParams>({
  method: 'POST',
  path: `${IN_PROJECT}/webhook-events/:eventId/replay`,
  key: 'operator',
  body: replayBodySchema,
  params: webhookEventParamsSchema,
  response: replayResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.replayWebhookEvent(ctx.params.eventId, ctx.body.endpointId ?? null)),
});
