/**
 * Guarantees of the delivery commands (`tessera webhooks test|replay|deliveries`), with the
 * in-process queue as `npm start` runs it: a test event reaches its one endpoint, whatever its
 * event types; a replay is a new delivery (its own record, attempts from 1) to the given
 * endpoint or to every enabled endpoint that receives the event; deliveries are listed with
 * every attempt; refusals are the operator's errors. Locally without a queue service, the CLI
 * makes the first attempt itself and shows its outcome.
 */
import { commandHelp } from '../../functions/src/cli/help';
import { COMMANDS } from '../../functions/src/cli/registry';
import { LocalSecretStore, secretEnvVarName } from '../../functions/src/secrets/store';
import { LocalSecretWriter } from '../../functions/src/secrets/writer';
import { EnvScope } from '../../functions/src/store/scope';
import { InProcessTaskQueue } from '../../functions/src/tasks/inProcessQueue';
import { deliveryTaskId, type WebhookEventRecord } from '../../functions/src/webhooks/eventModel';
import { signingSecretRef } from '../../functions/src/webhooks/signingSecret';
import { createTestService, type TestService } from '../support/harness';
import { operatorCommands } from '../support/operatorCommands';
import { addEndpoint, enqueueDelivery, lastV1Verifies, newProject, Receiver, recordEvent, secretsFile } from './deliverySupport';

const file = secretsFile();
let service: TestService;
let receiver: Receiver;
let useQueue = true;

const { tessera, tesseraFails } = operatorCommands(
  () => service,
  () => ({ secrets: new LocalSecretWriter(file), ...(useQueue ? { tasks: service.tasks } : {}) }),
);

const seconds = () => Math.floor(service.clock.now() / 1000);

beforeAll(async () => {
  service = createTestService({
    tasks: new InProcessTaskQueue({ backoffMs: () => 0 }),
    secrets: new LocalSecretStore({ file, environment: {} }),
    settings: { webhooksAllowLoopback: true },
    webhookDelivery: { retryDelaySeconds: () => 0 },
  });
  receiver = await Receiver.start();
});
afterAll(() => receiver.close());
beforeEach(() => {
  useQueue = true;
  receiver.requests.length = 0;
  receiver.reply = () => ({ status: 200, body: 'thanks' });
  service.clock.advance(1000);
});

describe('webhooks test', () => {
  it('sends a signed webhook.test event to the endpoint, even one subscribed to other types', async () => {
    const projectId = await newProject(service.deps);
    const { endpointId, secret } = await addEndpoint(service.deps, file, projectId, 'live', receiver.url(), { eventTypes: ['customer.erased'] });
    const out = await tessera('webhooks test', { endpoint: endpointId });
    expect(out).toMatchObject({ endpointId, task: 'enqueued', deliveryId: deliveryTaskId(out.eventId, endpointId) });
    await service.tasks.drain();

    expect(receiver.requests).toHaveLength(1);
    const body = JSON.parse(receiver.requests[0].body.toString('utf8'));
    expect(body).toMatchObject({ id: out.eventId, object: 'event', type: 'webhook.test', env: 'production', projectId, apiVersion: 'v1', data: { endpointId } });
    expect(lastV1Verifies(receiver.requests[0].headers['service-signature'] as string, receiver.requests[0].body, secret, seconds())).toBe(true);
    const event = (await new EnvScope(service.deps.db, projectId, 'live').doc('webhookEvents', out.eventId).get()).data() as WebhookEventRecord;
    // Marked as fanned out (by this command; in a full run another suite's relay, whose clock runs
    // ahead and which sweeps every partition of the shared emulator, may mark it first).
    expect(event).toMatchObject({ type: 'webhook.test', endpointId, fannedOutAt: expect.any(Number) });
  });

  it('refuses a disabled endpoint and an unknown one', async () => {
    const projectId = await newProject(service.deps);
    const { endpointId } = await addEndpoint(service.deps, file, projectId, 'test', receiver.url());
    await tessera('webhooks disable', { endpoint: endpointId });
    expect((await tesseraFails('webhooks test', { endpoint: endpointId })).code).toBe('conflict');
    expect((await tesseraFails('webhooks test', { endpoint: 'whep_000000000000000000000000' })).code).toBe('not_found');
  });
});

describe('webhooks deliveries', () => {
  it('lists an endpoint’s deliveries, newest first, with every attempt', async () => {
    const projectId = await newProject(service.deps);
    const { endpointId } = await addEndpoint(service.deps, file, projectId, 'test', receiver.url());
    const first = await recordEvent(service.deps, projectId, 'test', 'entitlement.granted', { sequence: 1 });
    receiver.reply = (_r, i) => (i === 0 ? { status: 500, body: 'try later' } : { status: 200, body: 'ok' });
    await enqueueDelivery(service.tasks, projectId, 'test', first.eventId, endpointId);
    await service.tasks.drain(); // the in-process queue runs the retry too
    service.clock.advance(1000);
    const second = await recordEvent(service.deps, projectId, 'test', 'entitlement.renewed', { sequence: 2 });
    await enqueueDelivery(service.tasks, projectId, 'test', second.eventId, endpointId);
    await service.tasks.drain();

    const out = await tessera('webhooks deliveries', { endpoint: endpointId });
    expect(out.endpointId).toBe(endpointId);
    expect(out.deliveries.map((d: any) => [d.eventId, d.state, d.attemptCount])).toEqual([
      [second.eventId, 'delivered', 1],
      [first.eventId, 'delivered', 2],
    ]);
    expect(out.deliveries[1].attempts).toEqual([
      expect.objectContaining({ attempt: 1, statusCode: 500, responseBody: 'try later', error: 'http_status', latencyMs: expect.any(Number) }),
      expect.objectContaining({ attempt: 2, statusCode: 200, responseBody: 'ok', error: null }),
    ]);
    expect(typeof out.deliveries[0].expiresAt).toBe('number');
    const one = await tessera('webhooks deliveries', { endpoint: endpointId, event: first.eventId });
    expect(one.deliveries.map((d: any) => d.eventId)).toEqual([first.eventId]);
    expect((await tesseraFails('webhooks deliveries', { endpoint: endpointId, limit: '0' })).code).toBe('invalid_argument');
    expect((await tesseraFails('webhooks deliveries', { endpoint: endpointId, event: 'nope' })).code).toBe('invalid_argument');
  });

  it('shows why the delivery disabled an endpoint, in webhooks list', async () => {
    const projectId = await newProject(service.deps);
    const { endpointId } = await addEndpoint(service.deps, file, projectId, 'test', receiver.url());
    const event = await recordEvent(service.deps, projectId, 'test', 'entitlement.granted', { sequence: 1 });
    receiver.reply = () => ({ status: 410 });
    await enqueueDelivery(service.tasks, projectId, 'test', event.eventId, endpointId);
    await service.tasks.drain();
    const { endpoints } = await tessera('webhooks list', { project: projectId, env: 'test' });
    expect(endpoints[0]).toMatchObject({ endpointId, enabled: false, disabled: { reason: 'gone', note: expect.stringContaining('410') } });
    // Enabled again by the operator: a fresh start.
    const enabled = await tessera('webhooks enable', { endpoint: endpointId });
    expect(enabled.endpoint).toMatchObject({ enabled: true, disabled: null, failingSince: null });
  });
});

describe('webhooks replay', () => {
  it('sends the event again as a new delivery to every enabled endpoint that receives it', async () => {
    const projectId = await newProject(service.deps);
    const all = await addEndpoint(service.deps, file, projectId, 'test', receiver.url('/all'));
    const subscribed = await addEndpoint(service.deps, file, projectId, 'test', receiver.url('/granted'), { eventTypes: ['entitlement.granted'] });
    await addEndpoint(service.deps, file, projectId, 'test', receiver.url('/other'), { eventTypes: ['customer.merged'] }); // not subscribed
    const disabled = await addEndpoint(service.deps, file, projectId, 'test', receiver.url('/disabled'));
    await tessera('webhooks disable', { endpoint: disabled.endpointId });
    const event = await recordEvent(service.deps, projectId, 'test', 'entitlement.granted', { sequence: 9 });
    await enqueueDelivery(service.tasks, projectId, 'test', event.eventId, all.endpointId);
    await service.tasks.drain();
    expect(receiver.requests).toHaveLength(1);

    const out = await tessera('webhooks replay', { event: event.eventId });
    expect(out.deliveries.map((d: any) => d.endpointId).sort()).toEqual([all.endpointId, subscribed.endpointId].sort());
    await service.tasks.drain();
    expect(receiver.requests.map((r) => r.headers['service-webhook-id'])).toEqual([event.eventId, event.eventId, event.eventId]);
    expect(receiver.requests.map((r) => r.headers['service-webhook-attempt'])).toEqual(['1', '1', '1']);

    const listed = await tessera('webhooks deliveries', { endpoint: all.endpointId, event: event.eventId });
    expect(listed.deliveries.map((d: any) => [d.replay, d.state]).sort()).toEqual([[null, 'delivered'], [out.replay, 'delivered']].sort());
  });

  it('to one endpoint, and refuses one that does not receive the event', async () => {
    const projectId = await newProject(service.deps);
    const a = await addEndpoint(service.deps, file, projectId, 'test', receiver.url('/a'));
    const b = await addEndpoint(service.deps, file, projectId, 'test', receiver.url('/b'), { eventTypes: ['customer.merged'] });
    const event = await recordEvent(service.deps, projectId, 'test', 'entitlement.revoked', { sequence: 1 });
    const out = await tessera('webhooks replay', { event: event.eventId, endpoint: a.endpointId });
    expect(out.deliveries).toEqual([{ endpointId: a.endpointId, deliveryId: deliveryTaskId(event.eventId, a.endpointId, out.replay), task: 'enqueued' }]);
    await service.tasks.drain();
    expect(receiver.requests).toHaveLength(1);
    expect((await tesseraFails('webhooks replay', { event: event.eventId, endpoint: b.endpointId })).code).toBe('invalid_argument');
    expect((await tesseraFails('webhooks replay', { event: 'evt_doesnotexist', endpoint: a.endpointId })).code).toBe('not_found');
    expect((await tesseraFails('webhooks replay', { event: 'evt_doesnotexist' })).code).toBe('not_found');
    // Another project's endpoint cannot replay this project's event.
    const elsewhere = await addEndpoint(service.deps, file, await newProject(service.deps), 'test', receiver.url('/c'));
    expect((await tesseraFails('webhooks replay', { event: event.eventId, endpoint: elsewhere.endpointId })).code).toBe('not_found');
  });
});

describe('on the local store without a queue service', () => {
  it('makes the first attempt in the CLI process and prints its outcome', async () => {
    const projectId = await newProject(service.deps);
    const { endpointId, secret } = await addEndpoint(service.deps, file, projectId, 'test', receiver.url());
    // The CLI reads secrets and settings as the local stack does: from its environment.
    const ref = signingSecretRef(endpointId, 1);
    process.env[secretEnvVarName(projectId, ref)] = secret;
    process.env.TESSERA_WEBHOOKS_ALLOW_LOOPBACK = 'on';
    useQueue = false;
    try {
      receiver.reply = () => ({ status: 500, body: 'not yet' });
      const out = await tessera('webhooks test', { endpoint: endpointId });
      expect(out.delivery).toMatchObject({ state: 'pending', attemptCount: 1, attempts: [expect.objectContaining({ statusCode: 500, responseBody: 'not yet' })] });
      expect(out.delivery.nextRetryAt).toBeGreaterThan(service.clock.now());
      expect(out.note).toMatch(/replay/);
      receiver.reply = () => ({ status: 200 });
      const replayed = await tessera('webhooks replay', { event: out.eventId, endpoint: endpointId });
      expect(replayed.deliveries[0].delivery).toMatchObject({ state: 'delivered', attemptCount: 1 });
      expect(replayed.note).toBeUndefined();
      expect(receiver.requests).toHaveLength(2);
    } finally {
      delete process.env[secretEnvVarName(projectId, ref)];
      delete process.env.TESSERA_WEBHOOKS_ALLOW_LOOPBACK;
    }
  });
});

it('describes each delivery command in its --help', () => {
  for (const name of ['webhooks deliveries', 'webhooks replay', 'webhooks test']) {
    const command = COMMANDS.find((c) => c.name === name)!;
    expect(commandHelp(command)).toMatch(new RegExp(`^Usage: tessera ${name} --`));
  }
});
