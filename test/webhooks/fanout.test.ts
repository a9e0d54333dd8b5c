/**
 * Guarantees of the fan-out (webhooks/fanout.ts, relay.ts) and of the outbox's crash safety:
 * an event goes only to endpoints of its own project and environment — a test environment's
 * change never reaches a live endpoint, no project's change reaches another project's — and
 * among them only to enabled ones subscribed to its type (an empty filter is every type); a
 * crash between the change's commit and the fan-out enqueue still delivers, because the relay
 * of the webhook worker finds the event still not fanned out and enqueues its delivery.
 */
import { linkHints } from '../../functions/src/identity/repository';
import type { Env } from '../../functions/src/store/env';
import { EnvScope } from '../../functions/src/store/scope';
import { deliveryTaskId, type WebhookEventRecord } from '../../functions/src/webhooks/eventModel';
import { endpointsFor } from '../../functions/src/webhooks/fanout';
import type { WebhookEndpointRecord } from '../../functions/src/webhooks/model';
import { webhookEventRef } from '../../functions/src/webhooks/outbox';
import { runWebhookWorker } from '../../functions/src/app/workers/outboxWorker';
import { RELAY_AFTER_MS } from '../../functions/src/webhooks/relay';
import { createTestService, seedProject, type SeededProject, type TestService } from '../support/harness';
import { createEndpoint, DeliveryRecordingQueue, eventsOf, tessera } from './support/outbox';

const queue = new DeliveryRecordingQueue();
let service: TestService;
let a: SeededProject;
let b: SeededProject;
const endpoints: Record<string, string> = {};

beforeAll(async () => {
  service = createTestService({ tasks: queue });
  [a, b] = [await seedProject(service), await seedProject(service)];
  endpoints.aTest = await createEndpoint(service, a.projectId, 'test');
  endpoints.aLive = await createEndpoint(service, a.projectId, 'live');
  endpoints.aTestRevokes = await createEndpoint(service, a.projectId, 'test', ['entitlement.revoked']);
  endpoints.aTestDisabled = await createEndpoint(service, a.projectId, 'test');
  await tessera(service, 'webhooks disable', { endpoint: endpoints.aTestDisabled });
  endpoints.bTest = await createEndpoint(service, b.projectId, 'test');
  endpoints.bLive = await createEndpoint(service, b.projectId, 'live');
});

const REASON = 'Webhook fan-out suite: a change to announce';
const name = (endpointId: string) => Object.entries(endpoints).find(([, id]) => id === endpointId)?.[0] ?? endpointId;

async function customerIn(project: SeededProject, env: Env): Promise<string> {
  const { customerId } = await linkHints(new EnvScope(service.deps.db, project.projectId, env), [{ kind: 'developer', id: `user_${Math.random().toString(36).slice(2)}` }], 'self_asserted', service.clock.now());
  return customerId!;
}

async function change(project: SeededProject, env: Env, customerId: string, action: 'grant' | 'revoke'): Promise<void> {
  const body = action === 'grant' ? { entitlementKey: 'pro', duration: 'lifetime', reason: REASON } : { entitlementKey: 'pro', reason: REASON };
  const res = await service.request().post(`/v1/server/customers/${customerId}/${action}`).set('Authorization', `Bearer ${project.web[env].secret}`).send(body);
  expect(res.status).toBe(200);
  await queue.drain();
}

/** The event of the customer's last change, and the endpoints (by name) its deliveries went to. */
async function lastEvent(project: SeededProject, env: Env, customerId: string): Promise<{ event: WebhookEventRecord; to: string[] }> {
  const all = await eventsOf(service, project.projectId, env, customerId);
  const event = all[all.length - 1];
  return { event, to: queue.deliveriesOf(event.eventId).map((d) => name(d.payload.endpointId)).sort() };
}

describe('partition and filters', () => {
  it('a test change reaches only the enabled, subscribed test endpoints of its own project', async () => {
    const customerId = await customerIn(a, 'test');
    await change(a, 'test', customerId, 'grant');
    const granted = await lastEvent(a, 'test', customerId);
    expect(granted.event.type).toBe('entitlement.granted');
    expect(granted.to).toEqual(['aTest']);

    await change(a, 'test', customerId, 'revoke');
    const revoked = await lastEvent(a, 'test', customerId);
    expect(revoked.event.type).toBe('entitlement.revoked');
    expect(revoked.to).toEqual(['aTest', 'aTestRevokes']);
    for (const d of queue.deliveriesOf(revoked.event.eventId)) {
      expect(d).toEqual({ id: deliveryTaskId(revoked.event.eventId, d.payload.endpointId), payload: { projectId: a.projectId, env: 'test', eventId: revoked.event.eventId, endpointId: d.payload.endpointId } });
    }
  });

  it('a live change reaches only the live endpoint of its own project', async () => {
    const customerId = await customerIn(a, 'live');
    await change(a, 'live', customerId, 'grant');
    const { event, to } = await lastEvent(a, 'live', customerId);
    expect(event.payload.env).toBe('production');
    expect(to).toEqual(['aLive']);
  });

  it('another project’s change reaches only that project’s endpoint', async () => {
    const customerId = await customerIn(b, 'test');
    await change(b, 'test', customerId, 'grant');
    const { event, to } = await lastEvent(b, 'test', customerId);
    expect(event.projectId).toBe(b.projectId);
    expect(to).toEqual(['bTest']);
  });

  it('over the whole suite, no delivery crossed a project or an environment', () => {
    expect(queue.deliveries.length).toBeGreaterThan(0);
    for (const { payload } of queue.deliveries) {
      const own = Object.entries(endpoints).filter(([key]) => key.startsWith(payload.projectId === a.projectId ? 'a' : 'b') && key.toLowerCase().includes(payload.env));
      expect(own.map(([, id]) => id)).toContain(payload.endpointId);
      expect(payload.endpointId).not.toBe(endpoints.aTestDisabled);
    }
  });

  it('endpointsFor: a named endpoint (webhook.test) whatever its filter; never one of another partition', () => {
    const endpoint = (fields: Partial<WebhookEndpointRecord>): WebhookEndpointRecord =>
      ({ endpointId: 'whep_x', projectId: 'p1', env: 'test', eventTypes: [], disabled: null, ...fields }) as WebhookEndpointRecord;
    const list = [endpoint({ endpointId: 'whep_all' }), endpoint({ endpointId: 'whep_refunds', eventTypes: ['entitlement.refunded'] }), endpoint({ endpointId: 'whep_live', env: 'live' }), endpoint({ endpointId: 'whep_other', projectId: 'p2' })];
    const ids = (event: Parameters<typeof endpointsFor>[0]) => endpointsFor(event, list).map((e) => e.endpointId);
    expect(ids({ type: 'entitlement.refunded', endpointId: null, projectId: 'p1', env: 'test' })).toEqual(['whep_all', 'whep_refunds']);
    expect(ids({ type: 'customer.erased', endpointId: null, projectId: 'p1', env: 'test' })).toEqual(['whep_all']);
    expect(ids({ type: 'webhook.test', endpointId: 'whep_refunds', projectId: 'p1', env: 'test' })).toEqual(['whep_refunds']);
    expect(ids({ type: 'webhook.test', endpointId: 'whep_live', projectId: 'p1', env: 'test' })).toEqual([]);
    expect(ids({ type: 'webhook.test', endpointId: null, projectId: 'p1', env: 'test' })).toEqual([]);
  });
});

describe('the outbox', () => {
  afterEach(() => {
    queue.loseFanouts = false;
  });

  it('a crash between the change’s commit and the fan-out enqueue still delivers: the relay enqueues it', async () => {
    const customerId = await customerIn(a, 'test');
    queue.loseFanouts = true;
    await change(a, 'test', customerId, 'grant'); // the change commits and answers 200; its fan-out is lost
    queue.loseFanouts = false;
    const { event, to } = await lastEvent(a, 'test', customerId);
    expect(event.type).toBe('entitlement.granted');
    expect(event.fannedOutAt).toBeNull();
    expect(to).toEqual([]);

    // Not before the relay's delay: the fan-out task may still be on its way.
    service.clock.advance(RELAY_AFTER_MS / 2);
    await runWebhookWorker(service.deps);
    expect(queue.deliveriesOf(event.eventId)).toEqual([]);

    service.clock.advance(RELAY_AFTER_MS / 2);
    const report = await runWebhookWorker(service.deps);
    expect(report.relay.fannedOut).toBeGreaterThanOrEqual(1);
    expect(queue.deliveriesOf(event.eventId)).toEqual([{ id: deliveryTaskId(event.eventId, endpoints.aTest), payload: { projectId: a.projectId, env: 'test', eventId: event.eventId, endpointId: endpoints.aTest } }]);
    expect(((await webhookEventRef(new EnvScope(service.deps.db, a.projectId, 'test'), event.eventId).get()).data() as WebhookEventRecord).fannedOutAt).toBe(service.clock.now());

    // A later run finds nothing left to relay for it.
    service.clock.advance(RELAY_AFTER_MS);
    await runWebhookWorker(service.deps);
    expect(queue.deliveriesOf(event.eventId)).toHaveLength(1);
  });
});
