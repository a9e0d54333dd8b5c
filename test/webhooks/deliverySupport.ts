import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Timestamp } from 'firebase-admin/firestore';
import { createDeps, type RootDeps } from '../../functions/src/app/deps';
import { DAY } from '../../functions/src/clock';
import { ManualClock } from '../support/manualClock';
import { LocalSecretStore } from '../../functions/src/secrets/store';
import { LocalSecretWriter } from '../../functions/src/secrets/writer';
import { toWireEnv, type Env } from '../../functions/src/store/env';
import { EnvScope } from '../../functions/src/store/scope';
import { runTask } from '../../functions/src/app/taskHandlers';
import { policyBackoffSeconds, RETRY_POLICIES, RetryLaterError, type EnqueueOptions, type EnqueueResult, type QueueName, type TaskQueue } from '../../functions/src/tasks/queue';
import type { DeliveryOverrides } from '../../functions/src/webhooks/deliveryPolicy';
import type { DeliveryRecord } from '../../functions/src/webhooks/deliveryModel';
import { createEndpoint } from '../../functions/src/webhooks/endpoints';
import { deliveryTaskId, WEBHOOK_EVENTS, type OutboundEventType, type WebhookEventRecord } from '../../functions/src/webhooks/eventModel';
import type { WebhookEndpointRecord } from '../../functions/src/webhooks/model';

/**
 * What the delivery suites share: a real HTTP receiver on loopback that checks signatures with
 * its own code (not the service's), a queue the test steps through one task at a time, and
 * writers of endpoints and outbox records through the contract model.
 */

// ---- The receiver ---------------------------------------------------------------------------

export interface Received {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** How the receiver answers one request: a status and body, or no answer at all. */
export type Reply = { status: number; body?: string } | 'hang';

export class Receiver {
  readonly requests: Received[] = [];
  /** Decides each answer; 200 by default. */
  reply: (request: Received, index: number) => Reply = () => ({ status: 200, body: '{"ok":true}' });
  private constructor(private readonly server: Server) {}

  static async start(port = 0): Promise<Receiver> {
    const server = createServer();
    const receiver = new Receiver(server);
    server.on('request', (req, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const received = { headers: req.headers, body: Buffer.concat(chunks) };
        receiver.requests.push(received);
        const answer = receiver.reply(received, receiver.requests.length - 1);
        if (answer === 'hang') return;
        res.writeHead(answer.status, { 'Content-Type': 'text/plain' }).end(answer.body ?? '');
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path = '/hooks'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A loopback port with nothing listening (taken, then released). */
export async function closedPort(): Promise<number> {
  const receiver = await Receiver.start();
  const port = receiver.port;
  await receiver.close();
  return port;
}

/**
 * The receiver's own check of `Service-Signature` (written from the documented scheme, not
 * from the service's code): `t` within 5 minutes of `nowSeconds`, and the `v1` values that
 * match HMAC-SHA256(secret, "<t>.<body>"), compared in constant time. Returns, per `v1` in
 * header order, whether it matched.
 */
export function verifyAll(header: string | undefined, body: Buffer, secret: string, nowSeconds: number): boolean[] {
  if (!header) return [];
  const parts = header.split(',').map((p) => p.split('=', 2) as [string, string]);
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > 300) return parts.filter(([k]) => k === 'v1').map(() => false);
  const expected = createHmac('sha256', secret).update(`${t}.`).update(body).digest();
  return parts
    .filter(([k]) => k === 'v1')
    .map(([, v]) => {
      const given = Buffer.from(v, 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/** The public node SDK's rule: only the last `v1` counts. */
export const lastV1Verifies = (header: string | undefined, body: Buffer, secret: string, nowSeconds: number): boolean => verifyAll(header, body, secret, nowSeconds).at(-1) === true;

// ---- A queue stepped by the test ------------------------------------------------------------

export interface QueuedTask {
  queue: QueueName;
  payload: Record<string, unknown>;
  options: EnqueueOptions;
  /** Cloud Tasks' retry count: 0 for the first run. */
  retryCount: number;
}

/**
 * Records tasks (de-duplicated by id, as Cloud Tasks does); the test runs them one by one through
 * the handler table. A task whose handler asks to be retried (RetryLaterError) is queued again,
 * same id, after the queue's retryConfig backoff (`scheduleDelaySeconds`), as Cloud Tasks does.
 */
class SteppingQueue implements TaskQueue {
  readonly queued: QueuedTask[] = [];
  readonly ids: string[] = [];
  deps: RootDeps | null = null;
  clock: ManualClock | null = null;

  async enqueue(queue: QueueName, payload: Record<string, unknown>, options: EnqueueOptions): Promise<EnqueueResult> {
    if (this.ids.includes(options.id)) return 'duplicate';
    this.ids.push(options.id);
    this.queued.push({ queue, payload, options, retryCount: 0 });
    return 'enqueued';
  }

  /** Runs the oldest queued task, moving the clock to its time when it was scheduled later; returns it, or null when none is left. */
  async runNext(): Promise<QueuedTask | null> {
    const task = this.queued.shift();
    if (!task) return null;
    if (task.options.scheduleDelaySeconds && this.clock) this.clock.advance(task.options.scheduleDelaySeconds * 1000);
    try {
      await runTask(task.queue, task.payload, this.deps!);
    } catch (err) {
      if (!(err instanceof RetryLaterError)) throw err;
      const retryCount = task.retryCount + 1;
      const delay = policyBackoffSeconds(RETRY_POLICIES[task.queue], retryCount + 1);
      this.queued.push({ ...task, retryCount, options: { ...task.options, scheduleDelaySeconds: delay } });
    }
    return task;
  }
}

// ---- Services, endpoints and events ---------------------------------------------------------

export const secretsFile = (): string => join(mkdtempSync(join(tmpdir(), 'tessera-deliveries-')), 'secrets.json');

export interface DeliveryWorld {
  deps: RootDeps;
  clock: ManualClock;
  queue: SteppingQueue;
  file: string;
}

/** Dependencies whose delivery tasks wait in a SteppingQueue. */
export function steppedDeps(options: { file: string; allowLoopback?: boolean; delivery?: DeliveryOverrides; clock?: ManualClock }): DeliveryWorld {
  const clock = options.clock ?? new ManualClock(Date.now());
  const queue = new SteppingQueue();
  const deps = createDeps({
    clock,
    tasks: queue,
    secrets: new LocalSecretStore({ file: options.file, environment: {} }),
    settings: { webhooksAllowLoopback: options.allowLoopback ?? true },
    webhookDelivery: options.delivery,
  });
  queue.deps = deps;
  queue.clock = clock;
  return { deps, clock, queue, file: options.file };
}

export async function addEndpoint(deps: RootDeps, file: string, projectId: string, env: Env, url: string, options: { eventTypes?: string[]; lookup?: DeliveryOverrides['lookup'] } = {}): Promise<{ endpointId: string; secret: string }> {
  const scope = new EnvScope(deps.db, projectId, env);
  const { endpoint, secret } = await createEndpoint(scope, { url, eventTypes: options.eventTypes ?? [], allowLoopbackHttp: true, lookup: options.lookup }, { secrets: new LocalSecretWriter(file), now: deps.clock.now(), surface: 'test' });
  return { endpointId: endpoint.endpointId, secret };
}

let eventCounter = 0;

/** Writes an outbox record as the recording side does (eventModel.ts). */
export async function recordEvent(deps: RootDeps, projectId: string, env: Env, type: OutboundEventType, data: Record<string, unknown>, endpointId: string | null = null): Promise<WebhookEventRecord> {
  const now = deps.clock.now();
  const eventId = `evt_test${Date.now().toString(36)}${(eventCounter += 1)}`;
  const record: WebhookEventRecord = {
    eventId,
    projectId,
    env,
    type,
    payload: { id: eventId, object: 'event', type, created: now, env: toWireEnv(env), projectId, apiVersion: 'v1', data },
    createdAt: now,
    fannedOutAt: now,
    endpointId,
    expiresAt: Timestamp.fromMillis(now + 30 * DAY),
  };
  await new EnvScope(deps.db, projectId, env).doc(WEBHOOK_EVENTS, eventId).create(record);
  return record;
}

const deliveryTask = (projectId: string, env: Env, eventId: string, endpointId: string) => ({ projectId, env, eventId, endpointId });

/** Enqueues the event's delivery to an endpoint, as the fan-out does. */
export function enqueueDelivery(tasks: TaskQueue, projectId: string, env: Env, eventId: string, endpointId: string): Promise<EnqueueResult> {
  return tasks.enqueue('webhookDelivery', deliveryTask(projectId, env, eventId, endpointId), { id: deliveryTaskId(eventId, endpointId) });
}

export async function deliveryRecord(deps: RootDeps, projectId: string, env: Env, deliveryId: string): Promise<DeliveryRecord | undefined> {
  return (await new EnvScope(deps.db, projectId, env).doc('webhookDeliveries', deliveryId).get()).data() as DeliveryRecord | undefined;
}

export async function endpointRecord(deps: RootDeps, projectId: string, env: Env, endpointId: string): Promise<WebhookEndpointRecord> {
  return (await new EnvScope(deps.db, projectId, env).doc('webhookEndpoints', endpointId).get()).data() as WebhookEndpointRecord;
}

/** A fresh project (no apps or keys: deliveries need none). */
export async function newProject(deps: RootDeps): Promise<string> {
  const { createProject } = await import('../../functions/src/projects/repository');
  return (await createProject(deps.db, 'webhook deliveries', deps.clock.now())).projectId;
}
