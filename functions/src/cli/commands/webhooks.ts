import { loadSettings } from '../../config/settings';
import { createOperatorSecretWriter } from '../../secrets/writer';
import { ENVS } from '../../store/env';
import { EnvScope } from '../../store/scope';
import { createEndpoint, DEFAULT_SECRET_GRACE_MS, disableEndpoint, enableEndpoint, listEndpoints, rotateEndpointSecret, type EndpointDeps } from '../../webhooks/endpoints';
import { locateEndpoint } from '../../webhooks/locate';
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
];
