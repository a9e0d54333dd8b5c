import { mkdtempSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Timestamp } from 'firebase-admin/firestore';
import { createDeps, type RootDeps } from '#functions/app/deps';
import { DAY } from '#functions/clock';
import { linkHints } from '#functions/identity/repository';
import { randomToken } from '#functions/ids/random';
import { LocalSecretStore, secretEnvVarName } from '#functions/secrets/store';
import { LocalSecretWriter } from '#functions/secrets/writer';
import { EnvScope } from '#functions/store/scope';
import { InProcessTaskQueue } from '#functions/tasks/inProcessQueue';
import { createEndpoint } from '#functions/webhooks/endpoints';
import { deliveryTaskId, WEBHOOK_DELIVERY_QUEUE, WEBHOOK_EVENTS, type WebhookEventRecord } from '#functions/webhooks/eventModel';
import { eventBody, signatureHeader } from '#functions/webhooks/signature';
import { signingSecretRef } from '#functions/webhooks/signingSecret';
import type { PacedOperation } from '../paced';
import type { BenchContext, Scenario } from '../scenario';

/**
 * Outbound webhooks: grant → delivered latency to 10 loopback receivers, deliveries per second,
 * and beside them the floor (the same grant, then a bare POST of a signed body to the same 10
 * receivers: no outbox, no task, no delivery record). The grant is a real request to the server
 * under measurement, which records the event with the change and enqueues its fan-out, which the
 * task worker runs as deployed (bench/taskWorker.ts; the fan-out task makes the first attempts); the operation ends when
 * the 10th receiver has the event. The deliveries/s scenario drives the delivery path alone:
 * the bench writes an outbox record and queues one delivery on a queue of its own.
 */
const ENDPOINTS = 10;
const REASON = 'Benchmark grant: goodwill credit for support ticket';

/** Ten receivers on loopback; `waitFor(eventId, n)` resolves once n requests carried that event id. */
class Receivers {
  private readonly servers: Server[] = [];
  private readonly waiting = new Map<string, { left: number; resolve: () => void }>();
  urls: string[] = [];

  async start(): Promise<void> {
    for (let i = 0; i < ENDPOINTS; i += 1) {
      const server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          res.writeHead(200).end('ok');
          const id = req.headers['service-webhook-id'];
          const body = Buffer.concat(chunks).toString('utf8');
          // An operation waits either for its event id or for a token its event's body carries.
          for (const token of [typeof id === 'string' ? id : '', ...this.waiting.keys()]) {
            const wait = this.waiting.get(token);
            if (!wait || (token !== id && !body.includes(token))) continue;
            if (--wait.left === 0) {
              this.waiting.delete(token);
              wait.resolve();
            }
            break;
          }
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      this.servers.push(server);
      this.urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/${i}`);
    }
  }

  waitFor(token: string, count: number): Promise<void> {
    return new Promise((resolve) => this.waiting.set(token, { left: count, resolve }));
  }
}

interface WebhookWorld {
  deps: RootDeps;
  scope: EnvScope;
  endpointIds: string[];
  receivers: Receivers;
  customerId: string;
  secretKey: string;
  baseUrl: string;
}

/** A queue and deliveries of the bench's own (loopback receivers allowed), 10 endpoints, one customer. */
async function webhookWorld(ctx: BenchContext): Promise<WebhookWorld> {
  const file = join(mkdtempSync(join(tmpdir(), 'tessera-bench-webhooks-')), 'secrets.json');
  const deps = createDeps({ tasks: new InProcessTaskQueue(), settings: { webhooksAllowLoopback: true }, secrets: new LocalSecretStore({ file, environment: {} }) });
  const scope = new EnvScope(deps.db, ctx.project.projectId, 'test');
  const receivers = new Receivers();
  await receivers.start();
  const endpointIds: string[] = [];
  const serverSecrets: Record<string, string> = {};
  for (const url of receivers.urls) {
    const { endpoint, secret } = await createEndpoint(scope, { url, eventTypes: [], allowLoopbackHttp: true }, { secrets: new LocalSecretWriter(file), now: deps.clock.now(), surface: 'bench' });
    endpointIds.push(endpoint.endpointId);
    serverSecrets[secretEnvVarName(ctx.project.projectId, signingSecretRef(endpoint.endpointId, endpoint.secretGeneration))] = secret;
  }
  // The server under measurement signs the grant's deliveries: it reads the secrets from its environment.
  await ctx.server.setSecrets(serverSecrets);
  const { customerId } = await linkHints(scope, [{ kind: 'developer', id: `bench-webhooks-${Date.now()}` }], 'self_asserted', deps.clock.now());
  const secretKey = ctx.project.apps.find((app) => app.platform === 'web')!.keys.test.secret;
  return { deps, scope, endpointIds, receivers, customerId: customerId!, secretKey, baseUrl: ctx.baseUrl };
}

/** POST with node:http, resolving to the status and JSON body. */
function post(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

let grants = 0;
/** A grant of a new key each time (`hook_key_<n>`: its events carry that text). */
async function grant(world: WebhookWorld, entitlementKey = `hook_key_${(grants += 1) % 20}`): Promise<Record<string, unknown> | null> {
  const body = JSON.stringify({ entitlementKey, duration: 'P30D', reason: REASON });
  const res = await post(`${world.baseUrl}/v1/server/customers/${world.customerId}/grant`, body, { Authorization: `Bearer ${world.secretKey}` });
  return res.status === 200 ? (JSON.parse(res.text) as Record<string, unknown>) : null;
}

/** The outbox record the recording side writes with a grant (eventModel.ts), here by the bench. */
async function recordGranted(world: WebhookWorld, data: Record<string, unknown>): Promise<string> {
  const now = Date.now();
  const eventId = `evt_${randomToken(24)}`;
  const record: WebhookEventRecord = {
    eventId,
    projectId: world.scope.projectId,
    env: 'test',
    type: 'entitlement.granted',
    payload: { id: eventId, object: 'event', type: 'entitlement.granted', created: now, env: 'sandbox', projectId: world.scope.projectId, apiVersion: 'v1', data },
    createdAt: now,
    fannedOutAt: now,
    endpointId: null,
    expiresAt: Timestamp.fromMillis(now + 30 * DAY),
  };
  await world.scope.doc(WEBHOOK_EVENTS, eventId).create(record);
  return eventId;
}

async function enqueueTo(world: WebhookWorld, eventId: string, endpointIds: string[]): Promise<void> {
  for (const endpointId of endpointIds) {
    await world.deps.tasks.enqueue(WEBHOOK_DELIVERY_QUEUE, { projectId: world.scope.projectId, env: 'test', eventId, endpointId }, { id: deliveryTaskId(eventId, endpointId) });
  }
}

/** Runs an operation a few times before the load (JIT, emulator, connections), as the server scenarios warm their instance. */
async function warmed(operation: PacedOperation): Promise<PacedOperation> {
  for (let i = 0; i < 3; i += 1) await operation();
  return operation;
}

async function grantThenDeliver(ctx: BenchContext): Promise<PacedOperation> {
  const world = await webhookWorld(ctx);
  let n = 0;
  return warmed(async () => {
    const entitlementKey = `delivered_key_${(n += 1)}`;
    const delivered = world.receivers.waitFor(`"${entitlementKey}"`, ENDPOINTS);
    const granted = await grant(world, entitlementKey);
    if (!granted) return false;
    await delivered;
    return true;
  });
}

async function grantThenBarePosts(ctx: BenchContext): Promise<PacedOperation> {
  const world = await webhookWorld(ctx);
  const secret = `whsec_${randomToken(43)}`;
  return warmed(async () => {
    const granted = await grant(world);
    if (!granted) return false;
    const eventId = `evt_${randomToken(24)}`;
    const body = eventBody({ id: eventId, object: 'event', type: 'entitlement.granted', created: Date.now(), env: 'sandbox', projectId: world.scope.projectId, apiVersion: 'v1', data: { entitlement: granted.entitlement ?? null } });
    const headers = { 'Service-Webhook-Id': eventId, 'Service-Signature': signatureHeader([secret], Math.floor(Date.now() / 1000), body) };
    const answers = await Promise.all(world.receivers.urls.map((url) => post(url, body.toString('utf8'), headers)));
    return answers.every((a) => a.status === 200);
  });
}

/** One delivery per operation (endpoints in turn), no grant: the delivery path's own rate. */
async function deliveriesOnly(ctx: BenchContext): Promise<PacedOperation> {
  const world = await webhookWorld(ctx);
  let n = 0;
  return warmed(async () => {
    const endpointId = world.endpointIds[(n += 1) % ENDPOINTS];
    const eventId = await recordGranted(world, { serviceCustomerId: world.customerId, sequence: n });
    const delivered = world.receivers.waitFor(eventId, 1);
    await enqueueTo(world, eventId, [endpointId]);
    await delivered;
    return true;
  });
}

export const webhookScenarios: Scenario[] = [
  {
    name: 'outbound webhooks: grant → delivered to all 10 endpoints, 2 clients each 1/s',
    note:
      'latency from sending the grant to the 10th receiver answering: the grant request (which records the event with the change) and its fan-out task, which carries the change’s snapshot of the partition’s webhook directory (the targets, the event’s payload) and so claims the 10 first attempts in one commit at once (no read first), resolves and checks each destination, signs and POSTs over loopback in parallel, then records the answers in one commit (delivery tasks only for failures); the tasks in the task worker process, as deployed (the grant in the server process)',
    paced: { clients: 2, perClientPerSecond: 1 },
    storeOperation: grantThenDeliver,
  },
  {
    name: 'outbound webhooks floor: the same grant, then a bare signed POST to each of the 10 receivers (no outbox, task or record)',
    paced: { clients: 2, perClientPerSecond: 1 },
    storeOperation: grantThenBarePosts,
  },
  {
    name: 'outbound webhooks: deliveries/s, one delivery per operation, 10 clients each 10/s',
    note: 'each operation writes an outbox record, queues one delivery to one of the 10 endpoints in turn and waits for its receiver: req/s is deliveries/s (offered 100/s)',
    paced: { clients: 10, perClientPerSecond: 10 },
    storeOperation: deliveriesOnly,
  },
];
