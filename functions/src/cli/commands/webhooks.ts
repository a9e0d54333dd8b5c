import { loadSettings } from '../../config/settings';
import { createOperatorSecretWriter } from '../../secrets/writer';
import { ENVS } from '../../store/env';
import { EnvScope } from '../../store/scope';
import { createEndpoint, DEFAULT_SECRET_GRACE_MS, deleteEndpoint, disableEndpoint, enableEndpoint, listEndpoints, rotateEndpointSecret, updateEndpoint, type EndpointDeps } from '../../webhooks/endpoints';
import { locateEndpoint, locateEvent } from '../../webhooks/locate';
import { listDeliveries, readDelivery, replayEvent, sendTestEvent } from '../../webhooks/operator';
import { operatorTasks } from '../operatorTasks';
import { OperatorError } from '../operatorError';
import { optionalString, requireOneOf, requireString, stringList, type Command, type CommandContext } from '../command';
import { parseDuration } from '../duration';

/** Outbound webhook endpoints (issue 13 §1). Signing secrets are printed once, by create and rotate-secret. */

const deps = (ctx: CommandContext): EndpointDeps => ({ secrets: ctx.secrets ?? createOperatorSecretWriter(), now: ctx.clock.now(), surface: 'cli' });

export const webhookCommands: Command[] = [
  {
    name: 'webhooks create',
    summary: '--project ID --env test|live --url URL [--event TYPE]…   (no --event: every type; the secret is shown once)',
    options: { project: { type: 'string' }, env: { type: 'string' }, url: { type: 'string' }, event: { type: 'string', multiple: true } },
    async run(values, ctx) {
      const scope = new EnvScope(ctx.db, requireString(values, 'project'), requireOneOf(values, 'env', ENVS));
      const input = { url: requireString(values, 'url'), eventTypes: stringList(values, 'event'), allowLoopbackHttp: loadSettings().webhooksAllowLoopback };
      const { endpoint, secret, auditEventId } = await createEndpoint(scope, input, deps(ctx));
      const { endpointId, ...rest } = endpoint;
      return { endpointId, secret, ...rest, auditEventId };
    },
  },
  {
    name: 'webhooks list',
    summary: '--project ID --env test|live   (no secret values)',
    options: { project: { type: 'string' }, env: { type: 'string' } },
    async run(values, ctx) {
      const scope = new EnvScope(ctx.db, requireString(values, 'project'), requireOneOf(values, 'env', ENVS));
      return { endpoints: await listEndpoints(scope, ctx.clock.now()) };
    },
  },
  {
    name: 'webhooks update',
    summary: '--endpoint ID [--url URL] [--event TYPE]… [--all-events]   (a new URL and/or event types; --all-events: every type)',
    options: { endpoint: { type: 'string' }, url: { type: 'string' }, event: { type: 'string', multiple: true }, 'all-events': { type: 'boolean' } },
    async run(values, ctx) {
      const endpointId = requireString(values, 'endpoint');
      const events = stringList(values, 'event');
      const allEvents = values['all-events'] === true;
      if (allEvents && events.length > 0) throw new OperatorError('invalid_argument', 'Give --event TYPE… or --all-events, not both.');
      const change = { url: optionalString(values, 'url'), eventTypes: allEvents ? [] : events.length > 0 ? events : undefined };
      return updateEndpoint(await locateEndpoint(ctx.db, endpointId), endpointId, { ...change, allowLoopbackHttp: loadSettings().webhooksAllowLoopback }, deps(ctx));
    },
  },
  {
    name: 'webhooks delete',
    summary: '--endpoint ID   (deletes the endpoint and every generation of its signing secret; its delivery records stay until they expire)',
    options: { endpoint: { type: 'string' } },
    async run(values, ctx) {
      const endpointId = requireString(values, 'endpoint');
      return deleteEndpoint(await locateEndpoint(ctx.db, endpointId), endpointId, deps(ctx));
    },
  },
  {
    name: 'webhooks disable',
    summary: '--endpoint ID [--note TEXT]',
    options: { endpoint: { type: 'string' }, note: { type: 'string' } },
    async run(values, ctx) {
      const endpointId = requireString(values, 'endpoint');
      return disableEndpoint(await locateEndpoint(ctx.db, endpointId), endpointId, optionalString(values, 'note') ?? null, deps(ctx));
    },
  },
  {
    name: 'webhooks enable',
    summary: '--endpoint ID',
    options: { endpoint: { type: 'string' } },
    async run(values, ctx) {
      const endpointId = requireString(values, 'endpoint');
      return enableEndpoint(await locateEndpoint(ctx.db, endpointId), endpointId, deps(ctx));
    },
  },
  {
    name: 'webhooks rotate-secret',
    summary: '--endpoint ID [--grace 24h|7d|0]   (24h default; the new secret is shown once)',
    options: { endpoint: { type: 'string' }, grace: { type: 'string' } },
    async run(values, ctx) {
      const endpointId = requireString(values, 'endpoint');
      const grace = optionalString(values, 'grace');
      const scope = await locateEndpoint(ctx.db, endpointId);
      const result = await rotateEndpointSecret(scope, endpointId, grace ? parseDuration(grace) : DEFAULT_SECRET_GRACE_MS, deps(ctx));
      return { endpointId, secret: result.secret, previousSecretExpiresAt: result.previousSecretExpiresAt, endpoint: result.endpoint, auditEventId: result.auditEventId };
    },
  },
  {
    name: 'webhooks deliveries',
    summary: '--endpoint ID [--event evt_…] [--limit N]   (newest first: state, every attempt with status, latency and the first 1 KB of the answer, next retry)',
    options: { endpoint: { type: 'string' }, event: { type: 'string' }, limit: { type: 'string' } },
    async run(values, ctx) {
      const endpointId = requireString(values, 'endpoint');
      const limit = Number(optionalString(values, 'limit') ?? 50);
      if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new OperatorError('invalid_argument', '--limit must be a whole number from 1 to 500.');
      const scope = await locateEndpoint(ctx.db, endpointId);
      return { endpointId, deliveries: await listDeliveries(scope, endpointId, optionalString(values, 'event') ?? null, limit) };
    },
  },
  {
    name: 'webhooks replay',
    summary: '--event evt_… [--endpoint ID]   (a new delivery of the event: to that endpoint, or to every enabled endpoint that receives its type)',
    options: { event: { type: 'string' }, endpoint: { type: 'string' } },
    async run(values, ctx) {
      const eventId = requireString(values, 'event');
      const endpointId = optionalString(values, 'endpoint') ?? null;
      const scope = endpointId ? await locateEndpoint(ctx.db, endpointId) : await locateEvent(ctx.db, eventId);
      const queue = await operatorTasks(ctx.db, ctx.clock, ctx.tasks);
      const result = await replayEvent(scope, eventId, endpointId, { tasks: queue.tasks, now: ctx.clock.now() });
      if (!(await queue.settle())) return result;
      const deliveries = await Promise.all(result.deliveries.map(async (d) => ({ ...d, delivery: await readDelivery(scope, d.deliveryId) })));
      return { ...result, deliveries, ...localNote(deliveries.map((d) => d.delivery)) };
    },
  },
  {
    name: 'webhooks test',
    summary: '--endpoint ID   (sends a webhook.test event to the endpoint, whatever its event types)',
    options: { endpoint: { type: 'string' } },
    async run(values, ctx) {
      const endpointId = requireString(values, 'endpoint');
      const scope = await locateEndpoint(ctx.db, endpointId);
      const queue = await operatorTasks(ctx.db, ctx.clock, ctx.tasks);
      const result = await sendTestEvent(scope, endpointId, { tasks: queue.tasks, now: ctx.clock.now() });
      if (!(await queue.settle())) return result;
      const delivery = await readDelivery(scope, result.deliveryId);
      return { ...result, delivery, ...localNote([delivery]) };
    },
  },
];

/** When the CLI made the first attempt itself (local store) and it failed: nothing runs the retry it scheduled. */
function localNote(deliveries: ({ state: string } | null)[]): { note?: string } {
  if (!deliveries.some((d) => d?.state === 'pending')) return {};
  return { note: 'Local store: this command made the first attempt itself; the retry it scheduled (nextRetryAt) is not run once it exits. Send again with webhooks replay.' };
}
