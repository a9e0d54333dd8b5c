/**
 * Guarantees of the fan-out's first attempts (webhooks/firstAttempts.ts), against real HTTP
 * receivers on loopback: the fan-out task alone delivers a healthy event to every endpoint (no
 * delivery task runs) in a fixed number of store round trips; a failed first attempt is counted
 * and gets its delivery task at the queue's first backoff, then the queue's own backoff; 410
 * disables; a fan-out racing the relay never sends twice; a crash after each step ends in a
 * retry or a relay (the attempt recorded `interrupted` when its answer was lost), never a lost
 * delivery nor two attempts in flight; endpoints of another project or environment never receive.
 */
import type { Firestore, WriteBatch } from 'firebase-admin/firestore';
import type { RootDeps } from '../../functions/src/app/deps';
import { runTask } from '../../functions/src/app/taskHandlers';
import { RoundTripCounter, withRoundTripCounter } from '../../functions/src/store/roundTrips';
import type { Env } from '../../functions/src/store/env';
import { EnvScope } from '../../functions/src/store/scope';
import { policyBackoffSeconds, RETRY_POLICIES, type EnqueueOptions, type QueueName, type TaskQueue } from '../../functions/src/tasks/queue';
import type { DeliveryRecord } from '../../functions/src/webhooks/deliveryModel';
import { deliveryTaskId, WEBHOOK_DELIVERY_QUEUE, type WebhookEventRecord } from '../../functions/src/webhooks/eventModel';
import { appendWebhookEvent, outboxRecord, webhookEventRef } from '../../functions/src/webhooks/outbox';
import { directoryOf, webhookDirectoryRef } from '../../functions/src/webhooks/directory';
import { dispatchWebhookEvents, type WebhookFanout } from '../../functions/src/webhooks/dispatch';
import { webhookEventId } from '../../functions/src/webhooks/eventIds';
import { disableEndpoint } from '../../functions/src/webhooks/endpoints';
import { LocalSecretWriter } from '../../functions/src/secrets/writer';
import { RELAY_AFTER_MS } from '../../functions/src/webhooks/relay';
import { FANOUT_SNAPSHOT_MAX_AGE_MS, fanOut, listEndpoints } from '../../functions/src/webhooks/fanout';
import type { AuditEntry } from '../../functions/src/audit/model';
import { addEndpoint, deliveryRecord, endpointRecord, newProject, Receiver, recordEvent, secretsFile, steppedDeps, verifyAll, type DeliveryWorld } from './deliverySupport';

const file = secretsFile();
let world: DeliveryWorld;
const receivers: Receiver[] = [];

beforeAll(async () => {
  world = steppedDeps({ file });
  for (let i = 0; i < 4; i += 1) receivers.push(await Receiver.start());
});
afterAll(() => Promise.all(receivers.map((r) => r.close())));
beforeEach(() => {
  for (const r of receivers) {
    r.requests.length = 0;
    r.reply = () => ({ status: 200, body: 'ok' });
  }
  world.queue.queued.length = 0;
});

const [ok, failing, gone, other] = [0, 1, 2, 3].map((i) => () => receivers[i]);
const seconds = () => Math.floor(world.clock.now() / 1000);
const queuedDeliveries = () => world.queue.queued.filter((t) => t.queue === WEBHOOK_DELIVERY_QUEUE);
const eventsOf = (eventId: string) => world.queue.queued.filter((t) => t.payload.eventId === eventId);

/** An outbox record as a change writes it (not fanned out yet), and its fan-out task on the stepped queue. */
async function changeRecorded(projectId: string, env: Env = 'test'): Promise<WebhookEventRecord> {
  const event = await recordEvent(world.deps, projectId, env, 'entitlement.granted', { serviceCustomerId: 'cdcust_first', sequence: 1, entitlement: { key: 'pro' }, previous: null });
  await webhookEventRef(new EnvScope(world.deps.db, projectId, env), event.eventId).update({ fannedOutAt: null });
  await world.queue.enqueue('webhookFanout', { projectId, env, eventId: event.eventId }, { id: event.eventId });
  return { ...event, fannedOutAt: null };
}

/**
 * An event recorded as a change's transaction records it: the partition's directory read in the
 * same transaction, the event written beside it, its fan-out task (with the snapshot) enqueued after the commit.
 */
async function changeRecordedWithSnapshot(projectId: string, env: Env = 'test'): Promise<{ event: WebhookEventRecord; fanout: WebhookFanout }> {
  const scope = new EnvScope(world.deps.db, projectId, env);
  const event = outboxRecord(scope, webhookEventId(scope, `test/${Math.random().toString(36).slice(2)}`), 'entitlement.granted', world.clock.now(), { serviceCustomerId: 'cdcust_first', sequence: 1 });
  const fanout = await scope.runTransaction(async (tx) => appendWebhookEvent(tx, scope, event, directoryOf(await tx.get(webhookDirectoryRef(scope)))));
  await dispatchWebhookEvents(world.queue, scope, [fanout!]);
  return { event, fanout: fanout! };
}

async function fannedOutAt(projectId: string, eventId: string, env: Env = 'test'): Promise<number | null> {
  return ((await webhookEventRef(new EnvScope(world.deps.db, projectId, env), eventId).get()).data() as WebhookEventRecord).fannedOutAt;
}

/** Runs queued tasks until none is left (each retry moves the clock to its scheduled time). */
async function runAll(max = 200): Promise<number> {
  let runs = 0;
  for (; runs < max; runs += 1) if (!(await world.queue.runNext())) break;
  return runs;
}

const fanoutPayload = (projectId: string, eventId: string, env: Env = 'test') => ({ projectId, env, eventId });

/** The fan-out task's run with other dependencies (a crash injected), as the queue would run it; resolves to its error. */
async function fanoutWith(deps: RootDeps, projectId: string, eventId: string): Promise<unknown> {
  world.queue.queued.splice(0, world.queue.queued.length, ...world.queue.queued.filter((t) => !(t.queue === 'webhookFanout' && t.payload.eventId === eventId)));
  return runTask('webhookFanout', fanoutPayload(projectId, eventId), deps).then(() => null, (err: unknown) => err);
}

/** A queue whose delivery enqueues fail (the process died before them). */
const deadQueue: TaskQueue = {
  async enqueue(queue: QueueName, payload: Record<string, unknown>, options: EnqueueOptions) {
    if (queue === WEBHOOK_DELIVERY_QUEUE) throw new Error('crash: the process died before enqueueing');
    return world.queue.enqueue(queue, payload, options);
  },
};

/**
 * A store handle whose `n`th write (a batch commit or a transaction, in order) dies: before it
 * starts, or after it committed (the process died there). The fan-out writes the claim (1), the
 * answers (2), then `fannedOutAt` (3).
 */
function storeDying(n: number, when: 'before' | 'after'): Firestore {
  let writes = 0;
  const db = world.deps.db;
  const dying = async <T>(write: () => Promise<T>): Promise<T> => {
    writes += 1;
    const current = writes;
    if (current === n && when === 'before') throw new Error(`crash before write ${n}`);
    const result = await write();
    if (current === n) throw new Error(`crash after write ${n} committed`);
    return result;
  };
  const batchOf = (batch: WriteBatch): WriteBatch => {
    const proxy: WriteBatch = new Proxy(batch, {
      get(target, prop) {
        if (prop === 'commit') return () => dying(() => target.commit());
        const value = Reflect.get(target, prop, target) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const result = (value as (...a: unknown[]) => unknown).apply(target, args);
          return result === target ? proxy : result; // chained writes stay on the dying batch
        };
      },
    });
    return proxy;
  };
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'runTransaction') return (...args: unknown[]) => dying(() => (target.runTransaction as (...a: unknown[]) => Promise<unknown>).apply(target, args));
      if (prop === 'batch') return () => batchOf(target.batch());
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** What the relay does for one event it finds not fanned out (relay.ts): every delivery task, then fannedOutAt. */
async function relayFanOut(projectId: string, eventId: string): Promise<void> {
  const scope = new EnvScope(world.deps.db, projectId, 'test');
  const event = (await webhookEventRef(scope, eventId).get()).data() as WebhookEventRecord;
  await fanOut(scope, world.queue, event, await listEndpoints(scope), world.clock.now());
}

describe('the first attempt, made by the fan-out task', () => {

  /** Ten enabled endpoints of `projectId`'s test partition, each at its own path of the healthy receiver. */
  async function tenHealthyEndpoints(projectId: string): Promise<{ endpointIds: string[]; secrets: string[] }> {
    const endpointIds: string[] = [];
    const secrets: string[] = [];
    for (let i = 0; i < 10; i += 1) {
      const { endpointId, secret } = await addEndpoint(world.deps, file, projectId, 'test', ok().url(`/hooks/${i}`));
      endpointIds.push(endpointId);
      secrets.push(secret);
    }
    return { endpointIds, secrets };
  }

  /** Every request the healthy receiver got is attempt 1 of `event`, its exact payload, signed by exactly one endpoint's secret (its own). */
  function expectFirstAttemptsOf(event: { eventId: string; payload: unknown }, secrets: string[]): void {
    for (const request of ok().requests) {
      expect(request.headers['service-webhook-id']).toBe(event.eventId);
      expect(request.headers['service-webhook-attempt']).toBe('1');
      expect(JSON.parse(request.body.toString('utf8'))).toEqual(event.payload);
      expect(secrets.filter((secret) => verifyAll(request.headers['service-signature'] as string, request.body, secret, seconds()).includes(true))).toHaveLength(1);
    }
  }

  it('delivers to all 10 endpoints without any delivery task, in 6 store round trips whatever the number of endpoints', async () => {
    const projectId = await newProject(world.deps);
    const { endpointIds, secrets } = await tenHealthyEndpoints(projectId);
    const event = await changeRecorded(projectId);

    const counter = new RoundTripCounter();
    const ran = await withRoundTripCounter(counter, () => world.queue.runNext());
    expect(ran?.queue).toBe('webhookFanout');
    // Event and endpoints (read concurrently), the claim (one commit), the answers (read + commit), fannedOutAt.
    // Before: 3 for the fan-out and 5 per delivery task (53 for 10 endpoints).
    expect(counter.count).toBe(6);

    expect(world.queue.queued).toEqual([]);
    expect(ok().requests).toHaveLength(10);
    expectFirstAttemptsOf(event, secrets);
    for (const endpointId of endpointIds) {
      const record = await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(event.eventId, endpointId));
      expect(record).toMatchObject({ state: 'delivered', attemptCount: 1, attemptsBeforeTask: 1, inFlight: null, nextRetryAt: null, deliveredAt: world.clock.now() });
      expect(record!.attempts).toEqual([expect.objectContaining({ attempt: 1, statusCode: 200, error: null, secretGenerations: [1] })]);
    }
    expect(await fannedOutAt(projectId, event.eventId)).toBe(world.clock.now());
  });

  it('with its change’s snapshot of the directory, claims at once: 4 store round trips (1 before the POSTs), the same deliveries', async () => {
    const projectId = await newProject(world.deps);
    const { endpointIds, secrets } = await tenHealthyEndpoints(projectId);
    const { event, fanout } = await changeRecordedWithSnapshot(projectId);
    expect(fanout.snapshot!.targets.map((t) => t.endpointId).sort()).toEqual([...endpointIds].sort());

    const counter = new RoundTripCounter();
    const ran = await withRoundTripCounter(counter, () => world.queue.runNext());
    expect(ran?.queue).toBe('webhookFanout');
    // The claim (one commit), the answers (read + commit), fannedOutAt: no read of the event or the endpoints.
    expect(counter.count).toBe(4);
    expect(world.queue.queued).toEqual([]);
    expect(ok().requests).toHaveLength(10);
    expectFirstAttemptsOf(event, secrets);
    for (const endpointId of endpointIds) {
      expect(await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(event.eventId, endpointId))).toMatchObject({ state: 'delivered', attemptCount: 1, attemptsBeforeTask: 1, inFlight: null });
    }
    expect(await fannedOutAt(projectId, event.eventId)).toBe(world.clock.now());
  });

  it('a snapshot task that starts more than 5 s after its change reads the event and the endpoints as they are (6 round trips)', async () => {
    const projectId = await newProject(world.deps);
    const kept = await addEndpoint(world.deps, file, projectId, 'test', ok().url('/kept'));
    const dropped = await addEndpoint(world.deps, file, projectId, 'test', other().url('/dropped'));
    const { event, fanout } = await changeRecordedWithSnapshot(projectId);
    expect(fanout.snapshot!.targets).toHaveLength(2);
    // A backlog: the endpoint is disabled after the change, and the task runs late.
    await disableEndpoint(new EnvScope(world.deps.db, projectId, 'test'), dropped.endpointId, null, { secrets: new LocalSecretWriter(file), now: world.clock.now(), surface: 'test' });
    world.clock.advance(FANOUT_SNAPSHOT_MAX_AGE_MS + 1);
    const counter = new RoundTripCounter();
    await withRoundTripCounter(counter, () => world.queue.runNext());
    expect(counter.count).toBe(6);
    expect(ok().requests).toHaveLength(1);
    expect(other().requests).toHaveLength(0);
    expect(await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(event.eventId, kept.endpointId))).toMatchObject({ state: 'delivered' });
    expect(await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(event.eventId, dropped.endpointId))).toBeUndefined();
  });

  it('a second run of a snapshot task (a duplicate, or a retry after a crash) sends nothing twice', async () => {
    const projectId = await newProject(world.deps);
    const { endpointId } = await addEndpoint(world.deps, file, projectId, 'test', ok().url('/once'));
    const { event, fanout } = await changeRecordedWithSnapshot(projectId);
    const payload = { projectId, env: 'test', eventId: event.eventId, snapshot: fanout.snapshot };
    await world.queue.runNext();
    await runTask('webhookFanout', payload, world.deps);
    expect(ok().requests).toHaveLength(1);
    expect(await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(event.eventId, endpointId))).toMatchObject({ state: 'delivered', attemptCount: 1 });
  });

  it('a snapshot naming another partition, or malformed, is not trusted: the task reads its own partition', async () => {
    const projectId = await newProject(world.deps);
    const elsewhere = await newProject(world.deps);
    const theirs = await addEndpoint(world.deps, file, elsewhere, 'test', other().url('/theirs'));
    const { event, fanout } = await changeRecordedWithSnapshot(elsewhere);
    world.queue.queued.length = 0;
    // The other project's event and targets, under this project's task: not this partition's snapshot.
    const mine = await recordEvent(world.deps, projectId, 'test', 'entitlement.granted', { sequence: 1 });
    await webhookEventRef(new EnvScope(world.deps.db, projectId, 'test'), mine.eventId).update({ fannedOutAt: null });
    await runTask('webhookFanout', { projectId, env: 'test', eventId: mine.eventId, snapshot: fanout.snapshot }, world.deps);
    await runTask('webhookFanout', { projectId, env: 'test', eventId: mine.eventId, snapshot: { ...fanout.snapshot!, payload: { ...fanout.snapshot!.payload, id: mine.eventId } } }, world.deps);
    await runTask('webhookFanout', { projectId, env: 'test', eventId: mine.eventId, snapshot: { payload: mine.payload, targets: [{ endpointId: theirs.endpointId }] } }, world.deps);
    expect(other().requests).toHaveLength(0);
    expect(await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(mine.eventId, theirs.endpointId))).toBeUndefined();
    expect(await deliveryRecord(world.deps, elsewhere, 'test', deliveryTaskId(event.eventId, theirs.endpointId))).toBeUndefined();
  });

  it('a failed first attempt is counted and gets its delivery task at the queue’s first backoff; later retries follow the queue’s backoff', async () => {
    const projectId = await newProject(world.deps);
    const good = await addEndpoint(world.deps, file, projectId, 'test', ok().url());
    const bad = await addEndpoint(world.deps, file, projectId, 'test', failing().url());
    failing().reply = (_, index) => (index < 2 ? { status: 500, body: 'down' } : { status: 200 });
    const event = await changeRecorded(projectId);
    const start = world.clock.now();
    await world.queue.runNext();

    expect(ok().requests).toHaveLength(1);
    expect(failing().requests).toHaveLength(1);
    const firstBackoff = policyBackoffSeconds(RETRY_POLICIES.webhookDelivery, 2);
    expect(queuedDeliveries()).toEqual([
      { queue: WEBHOOK_DELIVERY_QUEUE, payload: { projectId, env: 'test', eventId: event.eventId, endpointId: bad.endpointId }, options: { id: deliveryTaskId(event.eventId, bad.endpointId), scheduleDelaySeconds: firstBackoff }, retryCount: 0 },
    ]);
    const afterFirst = await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(event.eventId, bad.endpointId));
    expect(afterFirst).toMatchObject({ state: 'pending', attemptCount: 1, inFlight: null, nextRetryAt: start + firstBackoff * 1000 });
    expect(afterFirst!.attempts).toEqual([expect.objectContaining({ attempt: 1, statusCode: 500, error: 'http_status', responseBody: 'down' })]);
    expect((await endpointRecord(world.deps, projectId, 'test', bad.endpointId)).failingSince).toBe(start);
    expect((await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(event.eventId, good.endpointId)))!.state).toBe('delivered');

    // The task's first run is attempt 2; it fails, and the queue retries it after ITS first backoff, which the record says.
    await world.queue.runNext();
    expect(world.clock.now()).toBe(start + firstBackoff * 1000);
    const afterSecond = await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(event.eventId, bad.endpointId));
    expect(afterSecond).toMatchObject({ attemptCount: 2, nextRetryAt: world.clock.now() + firstBackoff * 1000 });
    expect(queuedDeliveries()[0].options.scheduleDelaySeconds).toBe(firstBackoff);
    expect(await runAll()).toBe(1);
    const done = await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(event.eventId, bad.endpointId));
    expect(done).toMatchObject({ state: 'delivered', attemptCount: 3 });
    expect(failing().requests.map((r) => r.headers['service-webhook-attempt'])).toEqual(['1', '2', '3']);
    expect(ok().requests).toHaveLength(1);
  });

  it('an endpoint already failing is left to the delivery queue (its rate limits), its task at once; it is back on the fan-out after a success', async () => {
    const projectId = await newProject(world.deps);
    const bad = await addEndpoint(world.deps, file, projectId, 'test', failing().url());
    failing().reply = (_, index) => (index === 0 ? { status: 503 } : { status: 200 });
    await changeRecorded(projectId);
    await world.queue.runNext();
    expect(failing().requests).toHaveLength(1);
    expect((await endpointRecord(world.deps, projectId, 'test', bad.endpointId)).failingSince).toBe(world.clock.now());
    world.queue.queued.length = 0;

    const next = await changeRecorded(projectId);
    await world.queue.runNext();
    expect(failing().requests).toHaveLength(1); // the fan-out sent nothing to it
    expect(await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(next.eventId, bad.endpointId))).toBeUndefined();
    expect(queuedDeliveries().map((t) => [t.options.id, t.options.scheduleDelaySeconds])).toEqual([[deliveryTaskId(next.eventId, bad.endpointId), undefined]]);
    await world.queue.runNext(); // the task delivers and ends the endpoint's run of failures
    expect(failing().requests).toHaveLength(2);
    expect((await endpointRecord(world.deps, projectId, 'test', bad.endpointId)).failingSince).toBeNull();

    const third = await changeRecorded(projectId);
    await world.queue.runNext();
    expect(failing().requests.map((r) => r.headers['service-webhook-id'])).toEqual([expect.any(String), next.eventId, third.eventId]);
    expect(world.queue.queued).toEqual([]);
  });

  it('410 to the first attempt fails the delivery and disables the endpoint (audited); no task is queued', async () => {
    const projectId = await newProject(world.deps);
    const { endpointId } = await addEndpoint(world.deps, file, projectId, 'test', gone().url());
    gone().reply = () => ({ status: 410 });
    const event = await changeRecorded(projectId);
    await world.queue.runNext();
    expect(world.queue.queued).toEqual([]);
    expect(await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(event.eventId, endpointId))).toMatchObject({ state: 'failed', failure: 'endpoint_gone', attemptCount: 1 });
    expect((await endpointRecord(world.deps, projectId, 'test', endpointId)).disabled).toMatchObject({ reason: 'gone' });
    const audits = await new EnvScope(world.deps.db, projectId, 'test').collection('audit').where('eventType', '==', 'webhook_endpoint.disabled').get();
    expect(audits.docs.map((d) => (d.data() as AuditEntry).details)).toEqual([expect.objectContaining({ endpointId, surface: 'delivery', disabledReason: 'gone' })]);
  });

  it('a signing secret that cannot be read: nothing is claimed or sent, the delivery is left to its task', async () => {
    const projectId = await newProject(world.deps);
    const { endpointId } = await addEndpoint(world.deps, secretsFile(), projectId, 'test', ok().url()); // its secret is where this service does not look
    const event = await changeRecorded(projectId);
    await world.queue.runNext();
    expect(ok().requests).toHaveLength(0);
    expect(await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(event.eventId, endpointId))).toBeUndefined();
    expect(queuedDeliveries().map((t) => [t.options.id, t.options.scheduleDelaySeconds])).toEqual([[deliveryTaskId(event.eventId, endpointId), undefined]]);
    expect(await fannedOutAt(projectId, event.eventId)).toBe(world.clock.now());
  });

  it('at most 25 attempts, the fan-out’s first included, whatever the queue does', async () => {
    const projectId = await newProject(world.deps);
    const { endpointId } = await addEndpoint(world.deps, file, projectId, 'test', failing().url());
    failing().reply = () => ({ status: 503 });
    const event = await changeRecorded(projectId);
    await runAll();
    expect(failing().requests).toHaveLength(25);
    expect(await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(event.eventId, endpointId))).toMatchObject({ state: 'failed', failure: 'retries_exhausted', attemptCount: 25 });
  });
});

describe('duplicates and crashes', () => {
  it('a fan-out racing the relay never sends twice (the relay’s task first, or both at once)', async () => {
    const projectId = await newProject(world.deps);
    const first = await addEndpoint(world.deps, file, projectId, 'test', ok().url('/a'));
    await addEndpoint(world.deps, file, projectId, 'test', ok().url('/b'));
    await addEndpoint(world.deps, file, projectId, 'test', ok().url('/c'));
    const event = await changeRecorded(projectId);
    world.clock.advance(RELAY_AFTER_MS);
    // The relay enqueues every delivery and marks the event; the fan-out task had read it before that.
    await relayFanOut(projectId, event.eventId);
    await webhookEventRef(new EnvScope(world.deps.db, projectId, 'test'), event.eventId).update({ fannedOutAt: null });
    const relayed = eventsOf(event.eventId).filter((t) => t.queue === WEBHOOK_DELIVERY_QUEUE);
    expect(relayed).toHaveLength(3);
    // One relayed task runs before the fan-out's claim, then the fan-out, then the rest of the relayed tasks.
    const firstTask = relayed.find((t) => t.payload.endpointId === first.endpointId)!;
    world.queue.queued.splice(world.queue.queued.indexOf(firstTask), 1);
    await runTask(WEBHOOK_DELIVERY_QUEUE, firstTask.payload, world.deps);
    expect(await fanoutWith(world.deps, projectId, event.eventId)).toBeNull();
    await runAll();
    expect(ok().requests).toHaveLength(3);

    // Both at once: a second event, its fan-out task and the relay concurrently, then every task.
    const second = await changeRecorded(projectId);
    world.clock.advance(RELAY_AFTER_MS);
    await Promise.all([world.queue.runNext(), relayFanOut(projectId, second.eventId)]);
    await runAll();
    const ofSecond = ok().requests.filter((r) => r.headers['service-webhook-id'] === second.eventId);
    expect(ofSecond).toHaveLength(3);
    expect(new Set(ofSecond.map((r) => r.headers['service-webhook-attempt']))).toEqual(new Set(['1']));
  });

  it('a crash after the claim, before sending: the fan-out’s retry queues the task; the attempt is recorded interrupted, the next one delivers', async () => {
    const projectId = await newProject(world.deps);
    const { endpointId } = await addEndpoint(world.deps, file, projectId, 'test', ok().url());
    const event = await changeRecorded(projectId);
    expect(await fanoutWith({ ...world.deps, db: storeDying(1, 'after') }, projectId, event.eventId)).toEqual(expect.any(Error));
    const deliveryId = deliveryTaskId(event.eventId, endpointId);
    expect(await deliveryRecord(world.deps, projectId, 'test', deliveryId)).toMatchObject({ state: 'pending', attemptCount: 1, inFlight: expect.objectContaining({ attempt: 1 }) });
    expect(await fannedOutAt(projectId, event.eventId)).toBeNull();
    expect(ok().requests).toHaveLength(0);

    // The queue retries the fan-out: the record exists, so the delivery is left to its task (queued now).
    expect(await fanoutWith(world.deps, projectId, event.eventId)).toBeNull();
    expect(queuedDeliveries().map((t) => t.options.id)).toEqual([deliveryId]);
    expect(await fannedOutAt(projectId, event.eventId)).toBe(world.clock.now());
    await runAll();
    expect(ok().requests.map((r) => r.headers['service-webhook-attempt'])).toEqual(['2']);
    const record = await deliveryRecord(world.deps, projectId, 'test', deliveryId);
    expect(record).toMatchObject({ state: 'delivered', attemptCount: 2 });
    expect(record!.attempts.map((a) => [a.attempt, a.error])).toEqual([[1, 'interrupted'], [2, null]]);
  });

  it('a crash after sending, before recording: the attempt is recorded interrupted once its claim expires, never two in flight', async () => {
    const projectId = await newProject(world.deps);
    const { endpointId } = await addEndpoint(world.deps, file, projectId, 'test', ok().url());
    const event = await changeRecorded(projectId);
    expect(await fanoutWith({ ...world.deps, db: storeDying(2, 'before') }, projectId, event.eventId)).toEqual(expect.any(Error));
    expect(ok().requests).toHaveLength(1);
    const deliveryId = deliveryTaskId(event.eventId, endpointId);
    expect(await deliveryRecord(world.deps, projectId, 'test', deliveryId)).toMatchObject({ state: 'pending', inFlight: expect.objectContaining({ attempt: 1 }) });

    expect(await fanoutWith(world.deps, projectId, event.eventId)).toBeNull();
    // The task comes while the claim is still in flight: it sends nothing and is retried after the queue's backoff.
    await world.queue.runNext();
    expect(ok().requests).toHaveLength(1);
    await runAll();
    expect(ok().requests.map((r) => r.headers['service-webhook-attempt'])).toEqual(['1', '2']);
    const record = await deliveryRecord(world.deps, projectId, 'test', deliveryId);
    expect(record).toMatchObject({ state: 'delivered', attemptCount: 2 });
    expect(record!.attempts.map((a) => [a.attempt, a.error])).toEqual([[1, 'interrupted'], [2, null]]);
  });

  it('a crash after recording, before the tasks are queued: the relay queues them; the failed one is retried when due, the delivered one not again', async () => {
    const projectId = await newProject(world.deps);
    const good = await addEndpoint(world.deps, file, projectId, 'test', ok().url());
    const bad = await addEndpoint(world.deps, file, projectId, 'test', failing().url());
    failing().reply = (_, index) => (index === 0 ? { status: 500 } : { status: 200 });
    const event = await changeRecorded(projectId);
    expect(await fanoutWith({ ...world.deps, tasks: deadQueue }, projectId, event.eventId)).toEqual(expect.any(Error));
    expect(await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(event.eventId, bad.endpointId))).toMatchObject({ state: 'pending', attemptCount: 1, inFlight: null });
    expect(await fannedOutAt(projectId, event.eventId)).toBeNull();

    // The fan-out task gave up; the relay finds the event a minute after its change.
    world.clock.advance(RELAY_AFTER_MS);
    await relayFanOut(projectId, event.eventId);
    expect(eventsOf(event.eventId).map((t) => t.payload.endpointId).sort()).toEqual([good.endpointId, bad.endpointId].sort());
    await runAll();
    expect(ok().requests).toHaveLength(1);
    expect(failing().requests.map((r) => r.headers['service-webhook-attempt'])).toEqual(['1', '2']);
    expect(await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(event.eventId, bad.endpointId))).toMatchObject({ state: 'delivered', attemptCount: 2 });
  });

  it('a crash before fannedOutAt: the fan-out run again sends nothing new and queues only what is unfinished', async () => {
    const projectId = await newProject(world.deps);
    await addEndpoint(world.deps, file, projectId, 'test', ok().url());
    const bad = await addEndpoint(world.deps, file, projectId, 'test', failing().url());
    failing().reply = () => ({ status: 500 });
    const event = await changeRecorded(projectId);
    await world.queue.runNext();
    expect(queuedDeliveries()).toHaveLength(1);
    await webhookEventRef(new EnvScope(world.deps.db, projectId, 'test'), event.eventId).update({ fannedOutAt: null });
    // As if that task's enqueue was lost too (the queue holds no such task).
    const [lost] = world.queue.queued.splice(0);
    world.queue.ids.splice(world.queue.ids.indexOf(lost.options.id), 1);
    expect(await fanoutWith(world.deps, projectId, event.eventId)).toBeNull();
    expect(ok().requests).toHaveLength(1);
    expect(failing().requests).toHaveLength(1);
    expect(queuedDeliveries().map((t) => t.payload.endpointId)).toEqual([bad.endpointId]);
  });
});

describe('partitions', () => {
  it('endpoints of another project or environment never receive; a fan-out task naming another partition sends nothing', async () => {
    const projectId = await newProject(world.deps);
    const otherProject = await newProject(world.deps);
    const own = await addEndpoint(world.deps, file, projectId, 'test', ok().url());
    await addEndpoint(world.deps, file, projectId, 'live', other().url('/live'));
    await addEndpoint(world.deps, file, otherProject, 'test', other().url('/other-project'));
    const event = await changeRecorded(projectId);
    await world.queue.runNext();
    expect(ok().requests).toHaveLength(1);
    expect(other().requests).toHaveLength(0);
    expect((await new EnvScope(world.deps.db, projectId, 'live').collection('webhookDeliveries').get()).size).toBe(0);
    expect((await new EnvScope(world.deps.db, otherProject, 'test').collection('webhookDeliveries').get()).size).toBe(0);
    expect(await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(event.eventId, own.endpointId))).toMatchObject({ state: 'delivered' });

    // The attacker's task: this event's id, fanned out in the other project's partition (and in live).
    const second = await changeRecorded(projectId);
    world.queue.queued.length = 0;
    for (const payload of [fanoutPayload(otherProject, second.eventId), fanoutPayload(projectId, second.eventId, 'live')]) {
      await runTask('webhookFanout', payload, world.deps);
    }
    expect(other().requests).toHaveLength(0);
    expect(world.queue.queued).toEqual([]);
    expect(await fannedOutAt(projectId, second.eventId)).toBeNull();
  });
});
