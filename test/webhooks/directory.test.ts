/**
 * The webhook directory (webhooks/directory.ts): every endpoint change keeps it equal to the
 * partition's enabled endpoints; a change's transaction reads it, and an event nobody enabled is
 * subscribed to is written already fanned out with no fan-out task (issue 23), while a partition
 * without a directory fans out as before and gets one from its first fan-out. Attackers: another
 * project's or environment's endpoints, and a disabled endpoint, never receive a change's event.
 * The race: an endpoint whose creation committed before a change's commit receives its event,
 * one created after does not (commit times of the two documents decide, not the test's timing).
 */
import { linkHints } from '../../functions/src/identity/repository';
import type { Env } from '../../functions/src/store/env';
import { EnvScope } from '../../functions/src/store/scope';
import { directoryOf, ensureDirectory, webhookDirectoryRef } from '../../functions/src/webhooks/directory';
import { customerErasedEvent } from '../../functions/src/webhooks/customerEvents';
import type { WebhookEventRecord } from '../../functions/src/webhooks/eventModel';
import { endpointRef } from '../../functions/src/webhooks/endpoints';
import { appendWebhookEvent, webhookEventRef } from '../../functions/src/webhooks/outbox';
import { createTestService, seedProject, type SeededProject, type TestService } from '../support/harness';
import { expectDirectoryMatchesRecords, storedDirectory } from './support/directory';
import { createEndpoint, DeliveryRecordingQueue, eventsOf, tessera } from './support/outbox';

const queue = new DeliveryRecordingQueue();
let service: TestService;

beforeAll(() => {
  service = createTestService({ tasks: queue });
});

const REASON = 'Webhook directory suite: a change to announce';
const scopeOf = (project: SeededProject, env: Env) => new EnvScope(service.deps.db, project.projectId, env);

async function customerIn(project: SeededProject, env: Env): Promise<string> {
  const { customerId } = await linkHints(scopeOf(project, env), [{ kind: 'developer', id: `user_${Math.random().toString(36).slice(2)}` }], 'self_asserted', service.clock.now());
  return customerId!;
}

/** Grants or revokes `pro` through the server API; returns the event it recorded (its last one). */
async function change(project: SeededProject, env: Env, customerId: string, action: 'grant' | 'revoke'): Promise<WebhookEventRecord> {
  const body = action === 'grant' ? { entitlementKey: 'pro', duration: 'lifetime', reason: REASON } : { entitlementKey: 'pro', reason: REASON };
  const res = await service.request().post(`/v1/server/customers/${customerId}/${action}`).set('Authorization', `Bearer ${project.web[env].secret}`).send(body);
  expect(res.status).toBe(200);
  const events = await eventsOf(service, project.projectId, env, customerId);
  return events[events.length - 1];
}

/** The event as stored now, after the queue ran (or not) its fan-out. */
const stored = async (project: SeededProject, env: Env, eventId: string) => (await webhookEventRef(scopeOf(project, env), eventId).get()).data()!;

describe('the directory follows every endpoint change', () => {
  it('create, update (types, URL), disable, enable, rotate, delete: each leaves it equal to the enabled records', async () => {
    const p = await seedProject(service);
    const check = () => expectDirectoryMatchesRecords(service.deps.db, p.projectId, 'test');
    expect(await storedDirectory(service.deps.db, p.projectId, 'test')).toBeNull();
    const all = await createEndpoint(service, p.projectId, 'test');
    await check();
    const revokes = await createEndpoint(service, p.projectId, 'test', ['entitlement.revoked']);
    await check();
    await tessera(service, 'webhooks update', { endpoint: revokes, event: ['entitlement.granted', 'entitlement.refunded'] });
    await check();
    await tessera(service, 'webhooks update', { endpoint: all, url: 'https://93.184.215.14/hooks/moved' });
    await check();
    await tessera(service, 'webhooks disable', { endpoint: all });
    await check();
    expect((await storedDirectory(service.deps.db, p.projectId, 'test'))!.map((e) => e.endpointId)).toEqual([revokes]);
    await tessera(service, 'webhooks update', { endpoint: all, event: ['customer.erased'] }); // disabled: still absent
    await check();
    await tessera(service, 'webhooks enable', { endpoint: all });
    await check();
    await tessera(service, 'webhooks rotate-secret', { endpoint: all, grace: '0' });
    await check();
    await tessera(service, 'webhooks delete', { endpoint: revokes });
    await check();
    expect(await storedDirectory(service.deps.db, p.projectId, 'test')).toEqual([expect.objectContaining({ endpointId: all, eventTypes: ['customer.erased'], url: 'https://93.184.215.14/hooks/moved', secret: expect.objectContaining({ generation: 2 }) })]);
    // The other environment's directory is its own: nothing was written there.
    expect(await storedDirectory(service.deps.db, p.projectId, 'live')).toBeNull();
  });
});

describe('events nobody is subscribed to', () => {
  it('a partition without a directory fans out as before; its first fan-out builds it; then events skip the fan-out task', async () => {
    const p = await seedProject(service);
    const customerId = await customerIn(p, 'test');
    const first = await change(p, 'test', customerId, 'grant');
    expect(queue.fanoutIds).toContain(first.eventId);
    await queue.drain();
    expect((await stored(p, 'test', first.eventId)).fannedOutAt).not.toBeNull();
    expect(await storedDirectory(service.deps.db, p.projectId, 'test')).toEqual([]);

    const second = await change(p, 'test', customerId, 'revoke');
    expect(second.type).toBe('entitlement.revoked');
    expect(second.fannedOutAt).toBe(second.createdAt);
    expect(queue.fanoutIds).not.toContain(second.eventId);
    expect(queue.deliveriesOf(second.eventId)).toEqual([]);
  });

  it('an endpoint of another type only: the event skips; one of its type is fanned out and delivered to it', async () => {
    const p = await seedProject(service);
    const revokes = await createEndpoint(service, p.projectId, 'test', ['entitlement.revoked']);
    const customerId = await customerIn(p, 'test');
    const granted = await change(p, 'test', customerId, 'grant');
    expect(granted.fannedOutAt).toBe(granted.createdAt);
    expect(queue.fanoutIds).not.toContain(granted.eventId);
    const revoked = await change(p, 'test', customerId, 'revoke');
    expect(queue.fanoutIds).toContain(revoked.eventId);
    await queue.drain();
    expect(queue.deliveriesOf(revoked.eventId).map((d) => d.payload.endpointId)).toEqual([revokes]);
  });

  it('an endpoint created just before a change receives its event', async () => {
    const p = await seedProject(service);
    await ensureDirectory(scopeOf(p, 'test'), service.clock.now()); // known and empty
    const customerId = await customerIn(p, 'test');
    const endpointId = await createEndpoint(service, p.projectId, 'test', ['entitlement.granted']);
    const granted = await change(p, 'test', customerId, 'grant');
    expect(queue.fanoutIds).toContain(granted.eventId);
    await queue.drain();
    expect(queue.deliveriesOf(granted.eventId).map((d) => d.payload.endpointId)).toEqual([endpointId]);
  });

  it('an erasure’s customer.erased: written fanned out with no task when nobody takes it, delivered to the endpoint that does', async () => {
    const p = await seedProject(service);
    await ensureDirectory(scopeOf(p, 'test'), service.clock.now()); // known and empty
    const erase = async (): Promise<WebhookEventRecord> => {
      const customerId = await customerIn(p, 'test');
      const res = await service.request().post('/v1/identity/forget').set('Authorization', `Bearer ${p.web.test.secret}`).send({ customerId });
      expect(res.status).toBe(200);
      await queue.drain();
      const [erased] = await eventsOf(service, p.projectId, 'test', customerId);
      expect(erased.type).toBe('customer.erased');
      return erased;
    };
    const unheard = await erase();
    expect(unheard.fannedOutAt).toBe(unheard.createdAt);
    expect(queue.fanoutIds).not.toContain(unheard.eventId);

    const endpointId = await createEndpoint(service, p.projectId, 'test', ['customer.erased']);
    const heard = await erase();
    expect(queue.fanoutIds).toContain(heard.eventId);
    expect(queue.deliveriesOf(heard.eventId).map((d) => d.payload.endpointId)).toEqual([endpointId]);
  });

  /** Whether the endpoint's creation committed before the event's (the store's commit times). */
  async function committedFirst(scope: EnvScope, endpointId: string, eventId: string): Promise<boolean> {
    const a = (await endpointRef(scope, endpointId).get()).createTime!;
    const b = (await webhookEventRef(scope, eventId).get()).createTime!;
    return a.seconds < b.seconds || (a.seconds === b.seconds && a.nanoseconds < b.nanoseconds);
  }

  it('race: an endpoint created concurrently with a change receives its event exactly when its creation committed first', async () => {
    const outcomes: boolean[] = [];
    // The change starts at several points of the creation (which checks the URL and writes the
    // secret before its transaction): the invariant holds whichever commits first.
    for (const headStartMs of [0, 20, 60, 150, 300]) {
      const p = await seedProject(service);
      const scope = scopeOf(p, 'test');
      await ensureDirectory(scope, service.clock.now());
      const customerId = await customerIn(p, 'test');
      const creation = createEndpoint(service, p.projectId, 'test');
      await new Promise((resolve) => setTimeout(resolve, headStartMs));
      const [endpointId, event] = await Promise.all([creation, change(p, 'test', customerId, 'grant')]);
      await queue.drain();
      const endpointFirst = await committedFirst(scope, endpointId, event.eventId);
      expect(queue.deliveriesOf(event.eventId).map((d) => d.payload.endpointId)).toEqual(endpointFirst ? [endpointId] : []);
      expect(queue.fanoutIds.includes(event.eventId)).toBe(endpointFirst);
      if (!endpointFirst) expect(event.fannedOutAt).toBe(event.createdAt);
      await expectDirectoryMatchesRecords(service.deps.db, p.projectId, 'test');
      outcomes.push(endpointFirst);
    }
    console.log(`race outcomes (endpoint committed first): ${outcomes.join(', ')}`);
  });

  it('race: a creation while a change holds the directory it read: the event skips its fan-out only when the creation committed after it', async () => {
    const p = await seedProject(service);
    const scope = scopeOf(p, 'test');
    await ensureDirectory(scope, service.clock.now());
    let creation: Promise<string> | null = null;
    let eventId = '';
    // A change's transaction: reads the directory, lets a creation start meanwhile, then writes its event.
    await scope.runTransaction(async (tx) => {
      const directory = directoryOf(await tx.get(webhookDirectoryRef(scope)));
      creation ??= createEndpoint(service, p.projectId, 'test');
      await new Promise((resolve) => setTimeout(resolve, 300));
      const event = customerErasedEvent(scope, { customerId: 'cdcust_race', auditEventId: `srv_race_${Math.random().toString(36).slice(2)}`, at: service.clock.now() });
      eventId = event.eventId;
      appendWebhookEvent(tx, scope, event, directory);
    });
    const endpointId = await creation!;
    const endpointFirst = await committedFirst(scope, endpointId, eventId);
    const event = await stored(p, 'test', eventId);
    // Skipped only when no endpoint existed at its commit; had the creation won, the retried change saw it.
    expect(event.fannedOutAt === null).toBe(endpointFirst);
    await expectDirectoryMatchesRecords(service.deps.db, p.projectId, 'test');
    console.log(`held-directory race: endpoint committed first = ${endpointFirst}`);
  });
});

describe('attackers: who must not receive a change’s event', () => {
  let p: SeededProject;
  let other: SeededProject;
  const endpoints: Record<string, string> = {};

  beforeAll(async () => {
    [p, other] = [await seedProject(service), await seedProject(service)];
    endpoints.live = await createEndpoint(service, p.projectId, 'live');
    endpoints.otherTest = await createEndpoint(service, other.projectId, 'test');
    endpoints.disabled = await createEndpoint(service, p.projectId, 'test');
    await tessera(service, 'webhooks disable', { endpoint: endpoints.disabled });
  });

  it('a test change with only a live endpoint, another project’s endpoint and a disabled one: no fan-out, no delivery', async () => {
    const customerId = await customerIn(p, 'test');
    const granted = await change(p, 'test', customerId, 'grant');
    expect(granted.fannedOutAt).toBe(granted.createdAt);
    expect(queue.fanoutIds).not.toContain(granted.eventId);
    await queue.drain();
    expect(queue.deliveriesOf(granted.eventId)).toEqual([]);
    for (const d of queue.deliveries) expect(d.payload.endpointId).not.toBe(endpoints.disabled);
  });

  it('the live change goes to the live endpoint only', async () => {
    const customerId = await customerIn(p, 'live');
    const granted = await change(p, 'live', customerId, 'grant');
    expect(queue.fanoutIds).toContain(granted.eventId);
    await queue.drain();
    expect(queue.deliveriesOf(granted.eventId).map((d) => d.payload.endpointId)).toEqual([endpoints.live]);
  });
});
