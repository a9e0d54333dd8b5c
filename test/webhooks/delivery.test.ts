/**
 * Guarantees of webhook delivery (the `webhookDelivery` task), against a real HTTP receiver on
 * loopback that checks signatures with its own code: a 2xx delivers the exact signed bytes with
 * the documented headers; a 500, a timeout and a refused connection are recorded and retried
 * by the queue after its retryConfig backoff, as the next attempt; a duplicate run of a task
 * never sends, and every attempt is recorded once; at most 25 attempts, whatever the queue does;
 * 410 disables the endpoint (audited); 3 days of failures disable the endpoint (audited); during a rotation grace both secrets
 * sign, the old one last, and only the new one after; a destination refused after resolution
 * (deployed mode) is never contacted; a task never delivers across projects or environments.
 */
import { Timestamp } from 'firebase-admin/firestore';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { HOUR, MINUTE } from '../../functions/src/clock';
import { ManualClock } from '../support/manualClock';
import type { AuditEntry } from '../../functions/src/audit/model';
import { EnvScope } from '../../functions/src/store/scope';
import { deliveryTaskId } from '../../functions/src/webhooks/eventModel';
import { rotateEndpointSecret } from '../../functions/src/webhooks/endpoints';
import { LocalSecretWriter } from '../../functions/src/secrets/writer';
import { expectDirectoryMatchesRecords, storedDirectory } from './support/directory';
import {
  addEndpoint,
  closedPort,
  deliveryRecord,
  endpointRecord,
  enqueueDelivery,
  lastV1Verifies,
  newProject,
  Receiver,
  recordEvent,
  secretsFile,
  steppedDeps,
  verifyAll,
  type DeliveryWorld,
} from './deliverySupport';

const file = secretsFile();
let world: DeliveryWorld;
let receiver: Receiver;
const seconds = () => Math.floor(world.clock.now() / 1000);

beforeAll(async () => {
  world = steppedDeps({ file });
  receiver = await Receiver.start();
});
afterAll(() => receiver.close());
beforeEach(() => {
  receiver.requests.length = 0;
  receiver.reply = () => ({ status: 200, body: '{"ok":true}' });
  world.queue.queued.length = 0;
});

/** Runs queued tasks until none is left (each retry moves the clock to its scheduled time). */
async function runAll(max = 100): Promise<number> {
  let runs = 0;
  for (; runs < max; runs += 1) {
    if (!(await world.queue.runNext())) break;
  }
  return runs;
}

async function disableAudits(projectId: string, endpointId: string): Promise<AuditEntry[]> {
  const all = await new EnvScope(world.deps.db, projectId, 'test').collection('audit').where('eventType', '==', 'webhook_endpoint.disabled').get();
  return all.docs.map((d) => d.data() as AuditEntry).filter((a) => a.details?.endpointId === endpointId);
}

describe('a 2xx answer', () => {
  it('delivers the event as signed JSON with the documented headers, and records the attempt', async () => {
    const projectId = await newProject(world.deps);
    const { endpointId, secret } = await addEndpoint(world.deps, file, projectId, 'test', receiver.url('/hooks?x=1'));
    const event = await recordEvent(world.deps, projectId, 'test', 'entitlement.granted', { serviceCustomerId: 'cdcust_1', sequence: 7, entitlement: { key: 'pro' }, previous: null });
    receiver.reply = () => ({ status: 204 });
    await enqueueDelivery(world.queue, projectId, 'test', event.eventId, endpointId);
    expect(await runAll()).toBe(1);

    expect(receiver.requests).toHaveLength(1);
    const [received] = receiver.requests;
    expect(received.headers['content-type']).toBe('application/json');
    expect(received.headers['user-agent']).toMatch(/^Tessera-Webhooks\//);
    expect(received.headers['service-webhook-id']).toBe(event.eventId);
    expect(received.headers['service-webhook-attempt']).toBe('1');
    expect(received.headers.host).toBe(`127.0.0.1:${receiver.port}`);
    expect(verifyAll(received.headers['service-signature'] as string, received.body, secret, seconds())).toEqual([true]);
    expect(verifyAll(received.headers['service-signature'] as string, received.body, 'whsec_wrong', seconds())).toEqual([false]);
    const body = JSON.parse(received.body.toString('utf8'));
    expect(Object.keys(body)).toEqual(['id', 'object', 'type', 'created', 'env', 'projectId', 'apiVersion', 'data']);
    expect(body).toEqual(event.payload);

    const record = await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(event.eventId, endpointId));
    expect(record).toMatchObject({ state: 'delivered', attemptCount: 1, nextRetryAt: null, failure: null, eventType: 'entitlement.granted', replay: null });
    expect(record!.attempts).toEqual([expect.objectContaining({ attempt: 1, statusCode: 204, error: null, responseBody: null, secretGenerations: [1] })]);
    expect(record!.expiresAt.toMillis()).toBe(record!.createdAt + 30 * 24 * HOUR);
  });

  it('carries Standard Webhooks headers that the standardwebhooks library verifies with the same secret, old and new during a rotation', async () => {
    const projectId = await newProject(world.deps);
    const now = steppedDeps({ file, clock: new ManualClock(Date.now()) }); // the library checks the timestamp against the real time
    const { endpointId, secret: oldSecret } = await addEndpoint(now.deps, file, projectId, 'test', receiver.url());
    const rotated = await rotateEndpointSecret(new EnvScope(now.deps.db, projectId, 'test'), endpointId, HOUR, { secrets: new LocalSecretWriter(file), now: now.clock.now(), surface: 'test' });
    const event = await recordEvent(now.deps, projectId, 'test', 'entitlement.granted', { serviceCustomerId: 'cdcust_sw', sequence: 1 });
    await enqueueDelivery(now.queue, projectId, 'test', event.eventId, endpointId);
    await now.queue.runNext();
    expect(receiver.requests).toHaveLength(1);
    const [{ headers, body }] = receiver.requests;
    expect(headers['webhook-id']).toBe(event.eventId);
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(now.clock.now() / 1000)));
    const received = { 'webhook-id': headers['webhook-id'] as string, 'webhook-timestamp': headers['webhook-timestamp'] as string, 'webhook-signature': headers['webhook-signature'] as string };
    for (const secret of [rotated.secret, oldSecret]) expect(new Webhook(secret).verify(body.toString('utf8'), received)).toEqual(event.payload);
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(body.toString('utf8'), received)).toThrow(WebhookVerificationError);
    expect(() => new Webhook(rotated.secret).verify(body.toString('utf8').replace('cdcust_sw', 'cdcust_xx'), received)).toThrow(WebhookVerificationError);
  });

  it('is not sent again when the same task runs twice', async () => {
    const projectId = await newProject(world.deps);
    const { endpointId } = await addEndpoint(world.deps, file, projectId, 'test', receiver.url());
    const event = await recordEvent(world.deps, projectId, 'test', 'customer.merged', { serviceCustomerId: 'cdcust_2' });
    await enqueueDelivery(world.queue, projectId, 'test', event.eventId, endpointId);
    const task = world.queue.queued[0];
    await runAll();
    world.queue.queued.push(task); // Cloud Tasks may run a task more than once
    await runAll();
    expect(receiver.requests).toHaveLength(1);
  });

  it('is sent once when two runs of the same task race, and a 500 then a 200 are both recorded (issue 19 §5)', async () => {
    const projectId = await newProject(world.deps);
    const { endpointId } = await addEndpoint(world.deps, file, projectId, 'test', receiver.url());
    const event = await recordEvent(world.deps, projectId, 'test', 'customer.merged', { serviceCustomerId: 'cdcust_4' });
    receiver.reply = (_r, i) => (i === 0 ? { status: 500, body: 'boom' } : { status: 200 });
    await enqueueDelivery(world.queue, projectId, 'test', event.eventId, endpointId);
    const task = world.queue.queued[0];
    world.queue.queued.push(task); // Cloud Tasks may run a task twice at once
    await Promise.all([world.queue.runNext(), world.queue.runNext()]);
    expect(receiver.requests.map((r) => r.headers['service-webhook-attempt'])).toEqual(['1']);
    await runAll(); // the queue's retry
    expect(receiver.requests.map((r) => r.headers['service-webhook-attempt'])).toEqual(['1', '2']);
    const record = await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(event.eventId, endpointId));
    expect(record).toMatchObject({ state: 'delivered', attemptCount: 2, inFlight: null });
    expect(record!.attempts.map((a) => [a.attempt, a.statusCode])).toEqual([[1, 500], [2, 200]]);
  });

  it('is not sent by a second task for the same delivery before the queue’s retry is due', async () => {
    const projectId = await newProject(world.deps);
    const { endpointId } = await addEndpoint(world.deps, file, projectId, 'test', receiver.url());
    const event = await recordEvent(world.deps, projectId, 'test', 'entitlement.granted', { sequence: 9 });
    receiver.reply = (_r, i) => (i === 0 ? { status: 503 } : { status: 200 });
    await enqueueDelivery(world.queue, projectId, 'test', event.eventId, endpointId);
    await world.queue.runNext(); // attempt 1 fails; the queue holds its retry
    const retry = world.queue.queued.shift()!;
    const payload = { projectId, env: 'test' as const, eventId: event.eventId, endpointId };
    for (let i = 0; i < 20; i += 1) await world.deps.tasks.enqueue('webhookDelivery', payload, { id: `storm-${event.eventId}-${i}` });
    for (let i = 0; i < 20; i += 1) await world.queue.runNext(); // a storm of duplicates, all at once
    expect(receiver.requests).toHaveLength(1);
    // Each asked to be retried instead of ending (none may leave the delivery without a task).
    expect(world.queue.queued).toHaveLength(20);
    expect(world.queue.queued.every((t) => t.retryCount === 1)).toBe(true);
    world.queue.queued.unshift(retry);
    await runAll();
    // One attempt per due time: the retry delivers, the duplicates then find it finished.
    expect(receiver.requests.map((r) => r.headers['service-webhook-attempt'])).toEqual(['1', '2']);
    expect((await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(event.eventId, endpointId)))!.attempts.map((a) => a.statusCode)).toEqual([503, 200]);
    expect(world.queue.queued).toHaveLength(0);
  });

  it('goes to the address the check resolved, with the URL host kept in Host', async () => {
    const projectId = await newProject(world.deps);
    const lookups: string[] = [];
    const lookup = async (hostname: string) => {
      lookups.push(hostname);
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const pinned = steppedDeps({ file, clock: world.clock, delivery: { lookup } });
    const url = `http://receiver.tessera.test:${receiver.port}/hooks`;
    const { endpointId, secret } = await addEndpoint(pinned.deps, file, projectId, 'test', url, { lookup });
    const event = await recordEvent(pinned.deps, projectId, 'test', 'entitlement.renewed', { sequence: 2 });
    await enqueueDelivery(pinned.queue, projectId, 'test', event.eventId, endpointId);
    await pinned.queue.runNext();
    expect(lookups).toEqual(['receiver.tessera.test', 'receiver.tessera.test']); // at creation, then at delivery
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0].headers.host).toBe(`receiver.tessera.test:${receiver.port}`);
    expect(lastV1Verifies(receiver.requests[0].headers['service-signature'] as string, receiver.requests[0].body, secret, seconds())).toBe(true);
  });
});

describe('failed attempts', () => {
  it('retry a 500 through the queue after its backoff, as attempt 2, with the answer recorded', async () => {
    const projectId = await newProject(world.deps);
    const { endpointId } = await addEndpoint(world.deps, file, projectId, 'test', receiver.url());
    const event = await recordEvent(world.deps, projectId, 'test', 'entitlement.revoked', { sequence: 3 });
    receiver.reply = (_r, i) => (i === 0 ? { status: 500, body: `boom ${'x'.repeat(2000)}` } : { status: 200, body: 'ok' });
    await enqueueDelivery(world.queue, projectId, 'test', event.eventId, endpointId);
    const deliveryId = deliveryTaskId(event.eventId, endpointId);

    await world.queue.runNext();
    const pending = await deliveryRecord(world.deps, projectId, 'test', deliveryId);
    expect(pending).toMatchObject({ state: 'pending', attemptCount: 1, inFlight: null });
    expect(pending!.attempts[0]).toMatchObject({ statusCode: 500, error: 'http_status' });
    expect(Buffer.byteLength(pending!.attempts[0].responseBody!, 'utf8')).toBe(1024);
    expect(pending!.attempts[0].responseBody!.startsWith('boom xxx')).toBe(true);
    // The task threw: the queue runs the same task again after its first backoff (30 s), and the record says when.
    expect(world.queue.queued).toHaveLength(1);
    const retry = world.queue.queued[0];
    expect(retry.options.id).toBe(deliveryId);
    expect(retry.retryCount).toBe(1);
    expect(retry.options.scheduleDelaySeconds).toBe(30);
    expect(pending!.nextRetryAt).toBe(world.clock.now() + 30_000);
    expect((await endpointRecord(world.deps, projectId, 'test', endpointId)).failingSince).toBe(pending!.attempts[0].at);
    // The run of failures is in the partition's directory too (the fan-out leaves failing endpoints to their task).
    expect((await storedDirectory(world.deps.db, projectId, 'test'))![0].failingSince).toBe(pending!.attempts[0].at);
    await expectDirectoryMatchesRecords(world.deps.db, projectId, 'test');

    await runAll();
    expect(receiver.requests.map((r) => r.headers['service-webhook-attempt'])).toEqual(['1', '2']);
    const delivered = await deliveryRecord(world.deps, projectId, 'test', deliveryId);
    expect(delivered).toMatchObject({ state: 'delivered', attemptCount: 2, nextRetryAt: null });
    expect(delivered!.attempts.map((a) => a.statusCode)).toEqual([500, 200]);
    // A success ends the endpoint's run of failures.
    expect((await endpointRecord(world.deps, projectId, 'test', endpointId)).failingSince).toBeNull();
    await expectDirectoryMatchesRecords(world.deps.db, projectId, 'test');
  });

  it('record an attempt whose run died before recording it as interrupted, and go on with the next', async () => {
    const projectId = await newProject(world.deps);
    const { endpointId } = await addEndpoint(world.deps, file, projectId, 'test', receiver.url());
    const event = await recordEvent(world.deps, projectId, 'test', 'entitlement.granted', { sequence: 8 });
    const deliveryId = deliveryTaskId(event.eventId, endpointId);
    await enqueueDelivery(world.queue, projectId, 'test', event.eventId, endpointId);
    // A run claimed attempt 1 and died (an instance lost mid-request): the record says so, nothing else.
    const claimedAt = world.clock.now();
    await new EnvScope(world.deps.db, projectId, 'test').doc('webhookDeliveries', deliveryId).set({
      deliveryId, projectId, env: 'test', eventId: event.eventId, eventType: event.type, endpointId, replay: null, state: 'pending', attempts: [], attemptCount: 1,
      firstAttemptAt: claimedAt, nextRetryAt: null, inFlight: { attempt: 1, startedAt: claimedAt, expiresAt: claimedAt + 15_000 }, deliveredAt: null, failedAt: null, failure: null,
      createdAt: claimedAt, updatedAt: claimedAt, expiresAt: Timestamp.fromMillis(claimedAt + 30 * 24 * HOUR),
    });
    await world.queue.runNext(); // a run while the claim holds sends nothing, and asks the queue to retry it
    expect(receiver.requests).toHaveLength(0);
    expect(world.queue.queued.map((t) => [t.options.id, t.retryCount])).toEqual([[deliveryId, 1]]);
    await runAll(); // the queue's retry, 30 s later: the claim has expired
    expect(receiver.requests.map((r) => r.headers['service-webhook-attempt'])).toEqual(['2']);
    const record = await deliveryRecord(world.deps, projectId, 'test', deliveryId);
    expect(record).toMatchObject({ state: 'delivered', attemptCount: 2, inFlight: null });
    expect(record!.attempts.map((a) => [a.attempt, a.error])).toEqual([[1, 'interrupted'], [2, null]]);
  });

  it('retry a timeout (no answer within the timeout)', async () => {
    const projectId = await newProject(world.deps);
    const short = steppedDeps({ file, clock: world.clock, delivery: { timeoutMs: 300 } });
    const { endpointId } = await addEndpoint(short.deps, file, projectId, 'test', receiver.url());
    const event = await recordEvent(short.deps, projectId, 'test', 'entitlement.expired', { sequence: 4 });
    receiver.reply = (_r, i) => (i === 0 ? 'hang' : { status: 202 });
    await enqueueDelivery(short.queue, projectId, 'test', event.eventId, endpointId);
    await short.queue.runNext();
    const deliveryId = deliveryTaskId(event.eventId, endpointId);
    const pending = await deliveryRecord(short.deps, projectId, 'test', deliveryId);
    expect(pending!.attempts[0]).toMatchObject({ statusCode: null, error: 'timeout' });
    expect(short.queue.queued).toHaveLength(1);
    await short.queue.runNext();
    expect(await deliveryRecord(short.deps, projectId, 'test', deliveryId)).toMatchObject({ state: 'delivered', attemptCount: 2 });
  });

  it('retry a refused connection', async () => {
    const projectId = await newProject(world.deps);
    const port = await closedPort();
    const { endpointId } = await addEndpoint(world.deps, file, projectId, 'test', `http://127.0.0.1:${port}/hooks`);
    const event = await recordEvent(world.deps, projectId, 'test', 'entitlement.refunded', { sequence: 5 });
    await enqueueDelivery(world.queue, projectId, 'test', event.eventId, endpointId);
    await world.queue.runNext();
    const deliveryId = deliveryTaskId(event.eventId, endpointId);
    const pending = await deliveryRecord(world.deps, projectId, 'test', deliveryId);
    expect(pending!.attempts[0]).toMatchObject({ statusCode: null, error: 'connection', errorDetail: 'ECONNREFUSED' });
    expect(pending!.state).toBe('pending');

    const late = await Receiver.start(port); // the receiver comes back
    try {
      await runAll();
      expect(late.requests).toHaveLength(1);
      expect(late.requests[0].headers['service-webhook-attempt']).toBe('2');
      expect(await deliveryRecord(world.deps, projectId, 'test', deliveryId)).toMatchObject({ state: 'delivered', attemptCount: 2 });
    } finally {
      await late.close();
    }
  });

  it('never follow a redirect (a 3xx is retried)', async () => {
    const projectId = await newProject(world.deps);
    const { endpointId } = await addEndpoint(world.deps, file, projectId, 'test', receiver.url('/old'));
    const event = await recordEvent(world.deps, projectId, 'test', 'entitlement.granted', { sequence: 6 });
    receiver.reply = (request) => (request.headers['service-webhook-attempt'] === '1' ? { status: 307 } : { status: 200 });
    await enqueueDelivery(world.queue, projectId, 'test', event.eventId, endpointId);
    await world.queue.runNext();
    expect(receiver.requests).toHaveLength(1);
    const record = await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(event.eventId, endpointId));
    expect(record!.attempts[0]).toMatchObject({ statusCode: 307, error: 'http_status' });
  });
});

describe('410 Gone', () => {
  it('fails the delivery and disables the endpoint, with an audit entry', async () => {
    const projectId = await newProject(world.deps);
    const { endpointId } = await addEndpoint(world.deps, file, projectId, 'test', receiver.url());
    const first = await recordEvent(world.deps, projectId, 'test', 'entitlement.granted', { sequence: 1 });
    const second = await recordEvent(world.deps, projectId, 'test', 'entitlement.granted', { sequence: 2 });
    receiver.reply = () => ({ status: 410, body: 'gone' });
    await enqueueDelivery(world.queue, projectId, 'test', first.eventId, endpointId);
    await runAll();
    expect(world.queue.queued).toHaveLength(0);
    expect(await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(first.eventId, endpointId))).toMatchObject({ state: 'failed', failure: 'endpoint_gone', attemptCount: 1 });
    const endpoint = await endpointRecord(world.deps, projectId, 'test', endpointId);
    expect(endpoint.disabled).toMatchObject({ reason: 'gone' });
    // The disable left the partition's webhook directory (written in the same transaction).
    expect(await storedDirectory(world.deps.db, projectId, 'test')).toEqual([]);
    await expectDirectoryMatchesRecords(world.deps.db, projectId, 'test');
    const audits = await disableAudits(projectId, endpointId);
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ fromState: 'enabled', toState: 'disabled', details: expect.objectContaining({ disabledReason: 'gone', surface: 'delivery' }) });

    // Later deliveries to it are not sent.
    await enqueueDelivery(world.queue, projectId, 'test', second.eventId, endpointId);
    await runAll();
    expect(receiver.requests).toHaveLength(1);
    expect(await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(second.eventId, endpointId))).toMatchObject({ state: 'failed', failure: 'endpoint_disabled', attemptCount: 0 });
  });
});

describe('attempts stop', () => {
  it('after 25 attempts with the queue’s backoff (30 s doubling to 4 h), well within 3 days, whatever the queue does then', async () => {
    const projectId = await newProject(world.deps);
    const { endpointId } = await addEndpoint(world.deps, file, projectId, 'test', receiver.url());
    const event = await recordEvent(world.deps, projectId, 'test', 'customer.erased', { serviceCustomerId: 'cdcust_3' });
    receiver.reply = () => ({ status: 503, body: 'down' });
    const start = world.clock.now();
    await enqueueDelivery(world.queue, projectId, 'test', event.eventId, endpointId);
    await runAll(200);

    const deliveryId = deliveryTaskId(event.eventId, endpointId);
    const record = await deliveryRecord(world.deps, projectId, 'test', deliveryId);
    expect(record).toMatchObject({ state: 'failed', failure: 'retries_exhausted', attemptCount: 25, nextRetryAt: null });
    const attempts = record!.attempts;
    expect(attempts.map((a) => a.attempt)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    const gaps = attempts.slice(1).map((a, i) => (a.at - attempts[i].at) / 1000);
    expect(gaps.slice(0, 10)).toEqual([30, 60, 120, 240, 480, 960, 1920, 3840, 7680, 14400]);
    expect(new Set(gaps.slice(9))).toEqual(new Set([14400]));
    expect(attempts.at(-1)!.at - start).toBeLessThan(72 * HOUR);
    expect(receiver.requests.map((r) => Number(r.headers['service-webhook-attempt']))).toEqual(attempts.map((a) => a.attempt));

    // A queue that keeps running the task (its own limits ignored) changes nothing.
    for (let i = 0; i < 5; i += 1) {
      world.clock.advance(4 * HOUR);
      world.queue.queued.push({ queue: 'webhookDelivery', payload: { projectId, env: 'test', eventId: event.eventId, endpointId }, options: { id: deliveryId }, retryCount: 25 + i });
      await world.queue.runNext();
    }
    expect(receiver.requests).toHaveLength(25);
    expect(await deliveryRecord(world.deps, projectId, 'test', deliveryId)).toMatchObject({ state: 'failed', attemptCount: 25 });
  });

  it('after 3 days since the first attempt, even with attempts left (the queue was slow)', async () => {
    const projectId = await newProject(world.deps);
    const { endpointId } = await addEndpoint(world.deps, file, projectId, 'test', receiver.url());
    const event = await recordEvent(world.deps, projectId, 'test', 'customer.erased', { serviceCustomerId: 'cdcust_5' });
    receiver.reply = () => ({ status: 500 });
    await enqueueDelivery(world.queue, projectId, 'test', event.eventId, endpointId);
    await world.queue.runNext();
    const retry = world.queue.queued.shift()!;
    world.clock.advance(72 * HOUR); // the queue's retry comes 3 days late
    world.queue.queued.push({ ...retry, options: { id: retry.options.id } });
    await world.queue.runNext();
    expect(receiver.requests).toHaveLength(1);
    expect(await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(event.eventId, endpointId))).toMatchObject({ state: 'failed', failure: 'retries_exhausted', attemptCount: 1 });
    expect(world.queue.queued).toHaveLength(0);
  });
});

describe('three days of failures', () => {
  it('counts across deliveries: an endpoint failing for 3 days is disabled by whichever delivery fails then', async () => {
    const projectId = await newProject(world.deps);
    const { endpointId } = await addEndpoint(world.deps, file, projectId, 'test', receiver.url());
    receiver.reply = () => ({ status: 500 });
    const first = await recordEvent(world.deps, projectId, 'test', 'entitlement.granted', { sequence: 1 });
    await enqueueDelivery(world.queue, projectId, 'test', first.eventId, endpointId);
    const start = world.clock.now();
    await world.queue.runNext(); // fails at t0
    world.queue.queued.length = 0; // its retries are lost: only the endpoint's memory of the failure remains
    world.clock.advance(71 * HOUR);
    const second = await recordEvent(world.deps, projectId, 'test', 'entitlement.granted', { sequence: 2 });
    await enqueueDelivery(world.queue, projectId, 'test', second.eventId, endpointId);
    await world.queue.runNext(); // 71 h of failures: still enabled
    expect((await endpointRecord(world.deps, projectId, 'test', endpointId)).disabled).toBeNull();
    world.clock.advance(1 * HOUR);
    await world.queue.runNext(); // its retry, at 72 h: disabled
    expect((await endpointRecord(world.deps, projectId, 'test', endpointId)).disabled).toMatchObject({ reason: 'failing' });
    expect(await storedDirectory(world.deps.db, projectId, 'test')).toEqual([]);
    await expectDirectoryMatchesRecords(world.deps.db, projectId, 'test');
    const audits = await disableAudits(projectId, endpointId);
    expect(audits).toHaveLength(1);
    expect(audits[0].details).toMatchObject({ disabledReason: 'failing', failingSince: start, surface: 'delivery' });
    expect(await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(second.eventId, endpointId))).toMatchObject({ state: 'failed', failure: 'endpoint_disabled' });
    expect(world.queue.queued).toHaveLength(0);
  });
});

describe('secret rotation', () => {
  it('signs with both secrets during the grace (the old one last), then with the new one only', async () => {
    const projectId = await newProject(world.deps);
    const { endpointId, secret: oldSecret } = await addEndpoint(world.deps, file, projectId, 'test', receiver.url());
    const scope = new EnvScope(world.deps.db, projectId, 'test');
    const rotated = await rotateEndpointSecret(scope, endpointId, 1 * HOUR, { secrets: new LocalSecretWriter(file), now: world.clock.now(), surface: 'test' });
    const newSecret = rotated.secret;

    const during = await recordEvent(world.deps, projectId, 'test', 'entitlement.granted', { sequence: 1 });
    await enqueueDelivery(world.queue, projectId, 'test', during.eventId, endpointId);
    await runAll();
    const [graceRequest] = receiver.requests;
    const header = graceRequest.headers['service-signature'] as string;
    expect(verifyAll(header, graceRequest.body, newSecret, seconds())).toEqual([true, false]);
    expect(verifyAll(header, graceRequest.body, oldSecret, seconds())).toEqual([false, true]);
    // A receiver still holding the old secret, with the SDK's last-v1 rule, keeps verifying.
    expect(lastV1Verifies(header, graceRequest.body, oldSecret, seconds())).toBe(true);

    world.clock.advance(1 * HOUR + MINUTE);
    const after = await recordEvent(world.deps, projectId, 'test', 'entitlement.granted', { sequence: 2 });
    await enqueueDelivery(world.queue, projectId, 'test', after.eventId, endpointId);
    await runAll();
    const afterRequest = receiver.requests[1];
    const afterHeader = afterRequest.headers['service-signature'] as string;
    expect(verifyAll(afterHeader, afterRequest.body, newSecret, seconds())).toEqual([true]);
    expect(lastV1Verifies(afterHeader, afterRequest.body, oldSecret, seconds())).toBe(false);
    const record = await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(after.eventId, endpointId));
    expect(record!.attempts[0].secretGenerations).toEqual([2]);
  });
});

describe('destinations refused at delivery (deployed mode)', () => {
  it('never contacts loopback when loopback is not allowed', async () => {
    const projectId = await newProject(world.deps);
    const deployed = steppedDeps({ file, clock: world.clock, allowLoopback: false });
    const { endpointId } = await addEndpoint(deployed.deps, file, projectId, 'test', receiver.url());
    const event = await recordEvent(deployed.deps, projectId, 'test', 'entitlement.granted', { sequence: 1 });
    await enqueueDelivery(deployed.queue, projectId, 'test', event.eventId, endpointId);
    await deployed.queue.runNext();
    expect(receiver.requests).toHaveLength(0);
    const record = await deliveryRecord(deployed.deps, projectId, 'test', deliveryTaskId(event.eventId, endpointId));
    expect(record!.attempts[0]).toMatchObject({ error: 'destination_refused', statusCode: null });
    expect(record!.attempts[0].errorDetail).toMatch(/^scheme/);
    expect(record!.state).toBe('pending');
  });

  it('refuses a host that now resolves to a private address', async () => {
    const projectId = await newProject(world.deps);
    let answer = '93.184.215.14';
    const lookup = async () => [{ address: answer, family: 4 }];
    const deployed = steppedDeps({ file, clock: world.clock, allowLoopback: false, delivery: { lookup } });
    const { endpointId } = await addEndpoint(deployed.deps, file, projectId, 'test', 'https://hooks.tessera.test/in', { lookup });
    answer = '10.1.2.3'; // DNS now points inside
    const event = await recordEvent(deployed.deps, projectId, 'test', 'entitlement.granted', { sequence: 1 });
    await enqueueDelivery(deployed.queue, projectId, 'test', event.eventId, endpointId);
    await deployed.queue.runNext();
    const record = await deliveryRecord(deployed.deps, projectId, 'test', deliveryTaskId(event.eventId, endpointId));
    expect(record!.attempts[0]).toMatchObject({ error: 'destination_refused', statusCode: null });
    expect(record!.attempts[0].errorDetail).toMatch(/^blocked_address: A webhook destination must resolve only to public/);
    expect(record!.attempts[0].errorDetail).not.toContain('10.1.2.3');
  });
});

describe('partition', () => {
  it('a task never delivers an event to another project’s or environment’s endpoint', async () => {
    const a = await newProject(world.deps);
    const b = await newProject(world.deps);
    const other = await Receiver.start();
    try {
      const inA = await addEndpoint(world.deps, file, a, 'test', receiver.url());
      const inB = await addEndpoint(world.deps, file, b, 'test', other.url());
      const liveOfA = await addEndpoint(world.deps, file, a, 'live', other.url());
      const event = await recordEvent(world.deps, a, 'test', 'entitlement.granted', { sequence: 1 });
      const forged = [
        { projectId: a, env: 'test' as const, eventId: event.eventId, endpointId: inB.endpointId }, // A's event, B's endpoint, A's scope
        { projectId: b, env: 'test' as const, eventId: event.eventId, endpointId: inB.endpointId }, // A's event named in B's scope
        { projectId: a, env: 'live' as const, eventId: event.eventId, endpointId: liveOfA.endpointId }, // the test event in live
        { projectId: a, env: 'test' as const, eventId: event.eventId, endpointId: liveOfA.endpointId }, // a live endpoint in test
      ];
      for (const [i, payload] of forged.entries()) await world.queue.enqueue('webhookDelivery', payload, { id: `forged-${event.eventId}-${i}` });
      await runAll();
      expect(other.requests).toHaveLength(0);
      expect(receiver.requests).toHaveLength(0);
      for (const { projectId, env, endpointId } of forged) {
        expect(await deliveryRecord(world.deps, projectId, env, deliveryTaskId(event.eventId, endpointId))).toBeUndefined();
      }
      // The genuine task still delivers.
      await enqueueDelivery(world.queue, a, 'test', event.eventId, inA.endpointId);
      await runAll();
      expect(receiver.requests).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  it('a test event goes only to the endpoint it names, and an event only to subscribed endpoints', async () => {
    const projectId = await newProject(world.deps);
    const one = await addEndpoint(world.deps, file, projectId, 'test', receiver.url('/one'));
    const two = await addEndpoint(world.deps, file, projectId, 'test', receiver.url('/two'), { eventTypes: ['customer.merged'] });
    const test = await recordEvent(world.deps, projectId, 'test', 'webhook.test', { endpointId: one.endpointId }, one.endpointId);
    const granted = await recordEvent(world.deps, projectId, 'test', 'entitlement.granted', { sequence: 1 });
    await enqueueDelivery(world.queue, projectId, 'test', test.eventId, two.endpointId);
    await enqueueDelivery(world.queue, projectId, 'test', granted.eventId, two.endpointId);
    await runAll();
    expect(receiver.requests).toHaveLength(0);
    await enqueueDelivery(world.queue, projectId, 'test', test.eventId, one.endpointId);
    await runAll();
    expect(receiver.requests).toHaveLength(1);
  });
});

it('ignores a malformed task', async () => {
  await world.queue.enqueue('webhookDelivery', { projectId: 'p', env: 'staging', eventId: 'evt_x', endpointId: 'whep_x' }, { id: 'malformed' });
  await expect(runAll()).resolves.toBe(1);
  expect(receiver.requests).toHaveLength(0);
});
