/**
 * Guarantees of out-of-band identity resolution: the request path only records hints; the
 * identityResolution task resolves each landed event's hints to a customer of the key's own
 * project and environment, links co-occurring hints (never merging two known customers: a
 * conflict is queued instead), stores the events with their `serviceCustomerId`, and is
 * idempotent: a retried batch or a task run again stores each event once.
 */
import type { CustomerRecord } from '../../functions/src/customers/model';
import { linkHints } from '../../functions/src/identity/repository';
import { findCustomerIdByIdentity } from '../../functions/src/customers/lookup';
import { identityRef } from '../../functions/src/customers/refs';
import { batchDocId, eventDocId } from '../../functions/src/events/model';
import { resolveEventIdentities } from '../../functions/src/events/resolution';
import type { QueueName } from '../../functions/src/tasks/queue';
import { RoundTripCounter, withRoundTripCounter } from '../../functions/src/store/roundTrips';
import { EnvScope } from '../../functions/src/store/scope';
import { createTestService, seedProject, type SeededProject, type TestService } from '../support/harness';
import { event, postEvents, storedEvent, storedEvents } from './support';

let service: TestService;
let project: SeededProject;
let scope: EnvScope;

beforeAll(async () => {
  service = createTestService();
  project = await seedProject(service);
  scope = new EnvScope(service.deps.db, project.projectId, 'test');
});
afterAll(() => service.tasks.drain());

const now = () => service.clock.now();

async function land(body: unknown, target: TestService = service, into: SeededProject = project) {
  const res = await postEvents(target, into, body);
  expect(res.status).toBe(202);
  return res;
}

it('the request path records hints only; the task attaches the customer and links co-occurring hints', async () => {
  await land({ events: [event({ eventId: 'r-1', developerUserId: 'user-1', anonymousId: 'device-r1' }), event({ eventId: 'r-2', anonymousId: 'device-r1' })] });
  const before = await storedEvent(service, project.projectId, 'r-1');
  expect(before?.hints).toEqual({ developerUserId: 'user-1', anonymousId: 'device-r1', serviceCustomerId: null });
  await service.tasks.drain();

  const customerId = await findCustomerIdByIdentity(scope, 'developer', 'user-1');
  expect(customerId).toMatch(/^cdcust_/);
  expect(await findCustomerIdByIdentity(scope, 'anonymous', 'device-r1')).toBe(customerId);
  expect(await storedEvent(service, project.projectId, 'r-1')).toMatchObject({ serviceCustomerId: customerId, resolvedAt: now() });
  expect((await storedEvent(service, project.projectId, 'r-2'))?.serviceCustomerId).toBe(customerId);

  // A later event from the same device alone finds the same customer.
  await land({ events: [event({ eventId: 'r-3', anonymousId: 'device-r1' })] });
  await service.tasks.drain();
  expect((await storedEvent(service, project.projectId, 'r-3'))?.serviceCustomerId).toBe(customerId);
});

it('never merges two known customers: the developer-id customer wins and a conflict is queued', async () => {
  const byUser = await linkHints(scope, [{ kind: 'developer', id: 'user-c' }], 'self_asserted', now());
  const byDevice = await linkHints(scope, [{ kind: 'anonymous', id: 'device-c' }], 'self_asserted', now());
  await land({ events: [event({ eventId: 'c-1', developerUserId: 'user-c', anonymousId: 'device-c' })] });
  await service.tasks.drain();
  expect((await storedEvent(service, project.projectId, 'c-1'))?.serviceCustomerId).toBe(byUser.customerId);
  expect(await findCustomerIdByIdentity(scope, 'anonymous', 'device-c')).toBe(byDevice.customerId);
  const conflicts = await scope.collection('identityConflicts').where('canonicalCustomerId', '==', byUser.customerId).get();
  expect(conflicts.size).toBe(1);
});

it('honours a serviceCustomerId claim of an active customer and links the device to it', async () => {
  const known = await linkHints(scope, [{ kind: 'developer', id: 'user-claim' }], 'self_asserted', now());
  await land({ events: [event({ eventId: 'claim-1', serviceCustomerId: known.customerId as string, anonymousId: 'device-claim' })] });
  await land({ events: [event({ eventId: 'claim-2', serviceCustomerId: known.customerId as string, anonymousId: null as unknown as string })] });
  await service.tasks.drain();
  expect((await storedEvent(service, project.projectId, 'claim-1'))?.serviceCustomerId).toBe(known.customerId);
  expect((await storedEvent(service, project.projectId, 'claim-2'))?.serviceCustomerId).toBe(known.customerId);
  expect(await findCustomerIdByIdentity(scope, 'anonymous', 'device-claim')).toBe(known.customerId);
});

it('a claim against a device linked elsewhere follows identify’s authority and queues a conflict, never moving the device', async () => {
  const claimed = await linkHints(scope, [{ kind: 'developer', id: 'user-claimed' }], 'self_asserted', now());
  const deviceOwner = await linkHints(scope, [{ kind: 'anonymous', id: 'device-elsewhere' }], 'self_asserted', now());
  await land({ events: [event({ eventId: 'claim-conflict', serviceCustomerId: claimed.customerId as string, anonymousId: 'device-elsewhere' })] });
  await service.tasks.drain();
  expect((await storedEvent(service, project.projectId, 'claim-conflict'))?.serviceCustomerId).toBe(claimed.customerId);
  expect(await findCustomerIdByIdentity(scope, 'anonymous', 'device-elsewhere')).toBe(deviceOwner.customerId);
  const conflicts = await scope.collection('identityConflicts').where('canonicalCustomerId', '==', claimed.customerId).get();
  expect(conflicts.size).toBe(1);
});

it('ignores a claim naming no customer of this partition, or one contradicting the event’s developer id', async () => {
  const live = new EnvScope(service.deps.db, project.projectId, 'live');
  const liveCustomer = await linkHints(live, [{ kind: 'developer', id: 'user-live' }], 'self_asserted', now());
  const other = await linkHints(scope, [{ kind: 'developer', id: 'user-other' }], 'self_asserted', now());
  await land({
    events: [
      event({ eventId: 'bad-claim-1', serviceCustomerId: liveCustomer.customerId as string, anonymousId: null as unknown as string }),
      event({ eventId: 'bad-claim-2', serviceCustomerId: 'cdcust_doesnotexist', anonymousId: 'device-bad-claim' }),
      event({ eventId: 'bad-claim-3', serviceCustomerId: other.customerId as string, developerUserId: 'user-new', anonymousId: 'device-new' }),
    ],
  });
  await service.tasks.drain();
  expect((await storedEvent(service, project.projectId, 'bad-claim-1'))?.serviceCustomerId).toBeUndefined();
  const viaDevice = await findCustomerIdByIdentity(scope, 'anonymous', 'device-bad-claim');
  expect((await storedEvent(service, project.projectId, 'bad-claim-2'))?.serviceCustomerId).toBe(viaDevice);
  const third = await storedEvent(service, project.projectId, 'bad-claim-3');
  expect(third?.serviceCustomerId).toBe(await findCustomerIdByIdentity(scope, 'developer', 'user-new'));
  expect(third?.serviceCustomerId).not.toBe(other.customerId);
  const otherRecord = (await scope.doc('customers', other.customerId as string).get()).data() as CustomerRecord;
  expect(otherRecord.identities).toEqual([{ kind: 'developer', id: 'user-other' }]);
});

it('each landing has its own task; a retried batch still stores each event once; running a task again changes nothing', async () => {
  const enqueued: { queue: QueueName; id: string; payload: Record<string, unknown> }[] = [];
  const spy = createTestService();
  const original = spy.tasks.enqueue.bind(spy.tasks);
  spy.tasks.enqueue = async (queue, payload, options) => {
    enqueued.push({ queue, id: options.id, payload });
    return original(queue, payload, options);
  };
  const own = await seedProject(spy);
  const batch = { events: [event({ eventId: 'dedup-1', anonymousId: 'device-d' }), event({ eventId: 'dedup-2', developerUserId: 'user-d' })] };
  await land(batch, spy, own);
  await spy.tasks.drain();
  await land(batch, spy, own); // after the first task stored and removed the batch: it must be stored again
  await spy.tasks.drain();
  expect(enqueued.map((task) => task.queue)).toEqual(['identityResolution', 'identityResolution']);
  expect(enqueued[1].id).not.toBe(enqueued[0].id);
  expect(enqueued[1].payload).toEqual(enqueued[0].payload);

  const events = await storedEvents(spy, own.projectId);
  expect(events.map((stored) => stored.eventId).sort()).toEqual(['dedup-1', 'dedup-2']);
  expect((await spy.deps.db.collection(`projects/${own.projectId}/envs/test/eventBatches`).get()).size).toBe(0);
  const first = await storedEvent(spy, own.projectId, 'dedup-1');
  expect(first?.serviceCustomerId).toMatch(/^cdcust_/);

  spy.clock.advance(1000);
  await resolveEventIdentities(enqueued[0].payload, spy.deps);
  const rerun = await storedEvent(spy, own.projectId, 'dedup-1');
  expect(rerun).toEqual(first);
  const customers = await spy.deps.db.collection(`projects/${own.projectId}/envs/test/customers`).get();
  expect(customers.size).toBe(2);
});

it('a first landing is stored without reading its event documents (issue 23); a retried one is read, then stored once', async () => {
  const enqueued: Record<string, unknown>[] = [];
  const spy = createTestService();
  const original = spy.tasks.enqueue.bind(spy.tasks);
  // Held back, so that each task runs here under a counter.
  spy.tasks.enqueue = async (queue, payload, options) => {
    if (queue !== 'identityResolution') return original(queue, payload, options);
    enqueued.push(payload);
    return 'enqueued';
  };
  const own = await seedProject(spy);
  const events = Array.from({ length: 30 }, (_, i) => event({ eventId: `blind-${i}`, anonymousId: 'device-blind' }));
  await land({ events }, spy, own);
  const first = new RoundTripCounter();
  await withRoundTripCounter(first, () => resolveEventIdentities(enqueued[0], spy.deps));
  // The batch, the device's identity entry: never the 30 event documents.
  expect(first.documents).toBeLessThanOrEqual(3);
  const stored = await spy.deps.db.collection(`projects/${own.projectId}/envs/test/events`).get();
  expect(stored.size).toBe(30);

  await land({ events }, spy, own); // the same events again: the task falls back to reading them
  const retry = new RoundTripCounter();
  await withRoundTripCounter(retry, () => resolveEventIdentities(enqueued[1], spy.deps));
  expect(retry.documents).toBeGreaterThanOrEqual(30);
  expect((await spy.deps.db.collection(`projects/${own.projectId}/envs/test/events`).get()).size).toBe(30);
  expect((await spy.deps.db.collection(`projects/${own.projectId}/envs/test/eventBatches`).get()).size).toBe(0);
});

it('drops a malformed payload without retrying and tolerates batches that are already stored', async () => {
  await expect(resolveEventIdentities({ projectId: 'x', env: 'nowhere', batchDocIds: [] }, service.deps)).resolves.toBeUndefined();
  await expect(resolveEventIdentities({ projectId: project.projectId, env: 'test', batchDocIds: [batchDocId([eventDocId('never-landed')])] }, service.deps)).resolves.toBeUndefined();
});

describe('identify’s rules (issue 19 §1: events never link more than identify would)', () => {
  it('a user at the identify velocity cap gets no new device from events; the events go to the device alone', async () => {
    const userCustomer = (await linkHints(scope, [{ kind: 'developer', id: 'capped-user' }], 'self_asserted', now())).customerId;
    // As 30 identify calls within the last minute leave the user's record.
    await identityRef(scope, 'developer', 'capped-user').update({ recentIdentifies: Array.from({ length: 30 }, () => now()) });
    await land({ events: [event({ eventId: 'capped-1', developerUserId: 'capped-user', anonymousId: 'capped-new-device' })] });
    await service.tasks.drain();
    const deviceCustomer = await findCustomerIdByIdentity(scope, 'anonymous', 'capped-new-device');
    expect(deviceCustomer).toMatch(/^cdcust_/);
    expect(deviceCustomer).not.toBe(userCustomer);
    expect((await storedEvent(service, project.projectId, 'capped-1'))?.serviceCustomerId).toBe(deviceCustomer);

    // Once the window passed, the same hints link as identify would.
    service.clock.advance(61_000);
    await land({ events: [event({ eventId: 'capped-2', developerUserId: 'capped-user', anonymousId: 'capped-other-device' })] });
    await service.tasks.drain();
    expect(await findCustomerIdByIdentity(scope, 'anonymous', 'capped-other-device')).toBe(userCustomer);
  });

  it('a known user’s events on another known customer’s device queue a conflict and move nothing', async () => {
    const userCustomer = (await linkHints(scope, [{ kind: 'developer', id: 'conflicted-user' }], 'self_asserted', now())).customerId!;
    const otherCustomer = (await linkHints(scope, [{ kind: 'developer', id: 'other-user' }, { kind: 'anonymous', id: 'other-device' }], 'self_asserted', now())).customerId!;
    await land({ events: [event({ eventId: 'conflicted-1', developerUserId: 'conflicted-user', anonymousId: 'other-device' })] });
    await service.tasks.drain();
    expect((await storedEvent(service, project.projectId, 'conflicted-1'))?.serviceCustomerId).toBe(userCustomer);
    expect(await findCustomerIdByIdentity(scope, 'anonymous', 'other-device')).toBe(otherCustomer);
    const conflicts = await scope.collection('identityConflicts').where('canonicalCustomerId', '==', userCustomer).get();
    expect(conflicts.docs.map((d) => d.data())).toEqual([expect.objectContaining({ status: 'open', otherCustomerIds: [otherCustomer] })]);
  });
});
