/**
 * Guarantees of the landing itself: the request path writes one batch document per batch (no
 * per-event write), the identity-resolution task turns it into event documents and removes it,
 * a retry while it waits replaces it, a copy replaced under a running task is never removed
 * unstored, an erasure reaches events still waiting in a batch, and the retention worker
 * re-enqueues batches whose task was lost.
 */
import { MINUTE } from '../../functions/src/clock';
import { decodeBatchEvents } from '../../functions/src/events/batchCodec';
import { batchDocId, eventDocId, type LandedBatch } from '../../functions/src/events/model';
import { deleteLandedBatch } from '../../functions/src/events/repository';
import { storedEventConverter } from '../../functions/src/events/storedEventCodec';
import { resolveEventIdentities } from '../../functions/src/events/resolution';
import { STALE_BATCH_AFTER_MS } from '../../functions/src/retention/eventBatchSweep';
import { runRetention } from '../../functions/src/retention/worker';
import type { QueueName } from '../../functions/src/tasks/queue';
import { createTestService, seedProject, type SeededProject, type TestService } from '../support/harness';
import { event, events, postEvents, storedEvent } from './support';

/** A service whose identity-resolution tasks wait until `release()`; other queues run as usual. */
function serviceWithHeldResolution() {
  const service = createTestService({ settings: { exposeRoundTrips: true } });
  const held: { payload: Record<string, unknown>; id: string }[] = [];
  const enqueue = service.tasks.enqueue.bind(service.tasks);
  service.tasks.enqueue = async (queue: QueueName, payload, options) => {
    if (queue !== 'identityResolution') return enqueue(queue, payload, options);
    held.push({ payload, id: options.id });
    return 'enqueued';
  };
  /** Runs the held tasks of one project (the retention sweep also finds other suites' batches). */
  const release = async (projectId?: string) => {
    for (const task of held.splice(0)) {
      if (!projectId || task.payload.projectId === projectId) await resolveEventIdentities(task.payload, service.deps);
    }
  };
  return { service, held, release };
}

const batchesOf = (service: TestService, project: SeededProject) => service.deps.db.collection(`projects/${project.projectId}/envs/test/eventBatches`);
/** The stored events, read as the service reads them (packed or not: storedEventCodec.ts). */
const eventsOf = (service: TestService, project: SeededProject) => service.deps.db.collection(`projects/${project.projectId}/envs/test/events`).withConverter(storedEventConverter);

it('lands a 100-event batch as one document; its task stores the events and removes it', async () => {
  const { service, held, release } = serviceWithHeldResolution();
  const project = await seedProject(service);
  const batch = events(100, 'one-doc', { properties: { screen: 'home' } });
  const res = await postEvents(service, project, { events: batch });
  expect(res.status).toBe(202);
  expect(res.body.received).toBe(100);

  const pending = await batchesOf(service, project).get();
  expect(pending.size).toBe(1);
  expect(pending.docs[0].id).toBe(batchDocId(batch.map((e) => eventDocId(e.eventId as string))));
  const landed = pending.docs[0].data() as LandedBatch;
  expect(landed).toMatchObject({ codec: 'gzip-json-1', eventCount: 100, env: 'sandbox', appId: project.ios.appId, platform: 'ios' });
  expect(decodeBatchEvents(landed.events).map((e) => e.eventId)).toEqual(batch.map((e) => e.eventId));
  expect((await eventsOf(service, project).get()).size).toBe(0);
  expect(held).toHaveLength(1);

  await release();
  expect((await batchesOf(service, project).get()).size).toBe(0);
  const stored = await eventsOf(service, project).get();
  expect(stored.size).toBe(100);
  expect(new Set(stored.docs.map((doc) => doc.data().serviceCustomerId)).size).toBe(1);
  expect(stored.docs[0].data().properties).toBe('{"screen":"home"}');
  expect(stored.docs[0].data().receivedAt).toBe(landed.receivedAt);
});

it('a warm 100-event batch costs one read and one commit, whatever its size', async () => {
  const { service, release } = serviceWithHeldResolution();
  const project = await seedProject(service);
  await postEvents(service, project, { events: events(1, 'warm-up') }); // key cached, bucket leased
  const commits = jest.spyOn(service.deps.db, 'batch');
  try {
    const res = await postEvents(service, project, { events: events(100, 'two-trips', { properties: { screen: 'home' } }) });
    expect(res.status).toBe(202);
    expect(res.headers['x-tessera-round-trips']).toBe('2');
    expect(commits).toHaveBeenCalledTimes(1);
  } finally {
    commits.mockRestore();
  }
  await release();
});

it('a retry while the batch waits replaces its document; each event is stored once', async () => {
  const { service, held, release } = serviceWithHeldResolution();
  const project = await seedProject(service);
  const batch = { events: events(5, 'retry-pending') };
  for (let attempt = 0; attempt < 3; attempt += 1) expect((await postEvents(service, project, batch)).body.received).toBe(5);
  expect((await batchesOf(service, project).get()).size).toBe(1);
  expect(held).toHaveLength(3);
  await release();
  expect((await eventsOf(service, project).get()).size).toBe(5);
  expect((await batchesOf(service, project).get()).size).toBe(0);
});

it('never removes a copy that a retry replaced after the task read it', async () => {
  const { service, release } = serviceWithHeldResolution();
  const project = await seedProject(service);
  await postEvents(service, project, { events: events(2, 'replaced') });
  const [pending] = (await batchesOf(service, project).get()).docs;
  await postEvents(service, project, { events: events(2, 'replaced', { anonymousId: 'device-2' }) });

  const stale = service.deps.db.batch();
  deleteLandedBatch(stale, pending);
  await expect(stale.commit()).rejects.toThrow();
  expect((await pending.ref.get()).exists).toBe(true);

  await release();
  expect((await storedEvent(service, project.projectId, 'replaced-0'))?.hints.anonymousId).toBe('device-2');
});

it('an erasure removes the erased customer\'s events from batches still waiting for their task', async () => {
  const { service, release } = serviceWithHeldResolution();
  const project = await seedProject(service);
  const identified = await service
    .request()
    .post('/v1/identify')
    .set('Service-Api-Key', project.ios.test.secret)
    .send({ userId: 'erase-pending', anonymousId: 'erase-pending-device' });
  expect(identified.status).toBe(200);
  const customerId = identified.body.serviceCustomerId as string;

  await postEvents(service, project, { events: [event({ eventId: 'mine-only', developerUserId: 'erase-pending' })] });
  await postEvents(service, project, {
    events: [
      event({ eventId: 'mixed-mine', anonymousId: 'erase-pending-device' }),
      event({ eventId: 'mixed-claim', anonymousId: 'someone', serviceCustomerId: customerId }),
      event({ eventId: 'mixed-other', anonymousId: 'someone-else' }),
    ],
  });
  expect((await batchesOf(service, project).get()).size).toBe(2);

  const forgot = await service.request().post('/v1/identity/forget').set('Service-Api-Key', project.ios.test.secret).send({ customerId });
  expect(forgot.status).toBe(200);
  await service.tasks.drain();
  const left = await batchesOf(service, project).get();
  expect(left.size).toBe(1);
  expect(decodeBatchEvents((left.docs[0].data() as LandedBatch).events).map((e) => e.eventId)).toEqual(['mixed-other']);
  expect(left.docs[0].get('eventCount')).toBe(1);

  await release(); // the tasks of both landings run: one batch is gone, the other holds one event
  expect((await eventsOf(service, project).get()).docs.map((doc) => doc.data().eventId)).toEqual(['mixed-other']);
});

it('the retention worker re-enqueues a batch whose task was lost, once it is stale', async () => {
  const { service, held, release } = serviceWithHeldResolution();
  const project = await seedProject(service);
  await postEvents(service, project, { events: events(3, 'lost-task') });
  held.splice(0); // the task is lost

  // The sweep reads every partition of the store: other suites' pending batches may show up too.
  const ours = () => held.filter((task) => task.payload.projectId === project.projectId);
  service.clock.advance(STALE_BATCH_AFTER_MS - MINUTE);
  await runRetention(service.deps);
  expect(ours()).toHaveLength(0); // too recent: its task may still be retrying

  service.clock.advance(2 * MINUTE);
  const report = await runRetention(service.deps);
  expect(report.eventBatches.tasks).toBeGreaterThanOrEqual(1);
  expect(ours()).toHaveLength(1);
  await release(project.projectId);
  expect((await eventsOf(service, project).get()).size).toBe(3);
  expect((await batchesOf(service, project).get()).size).toBe(0);
});

it('an unreadable batch document is kept for inspection and stops nothing else', async () => {
  const { service, held, release } = serviceWithHeldResolution();
  const project = await seedProject(service);
  await postEvents(service, project, { events: events(2, 'beside-unreadable') });
  const [landed] = (await batchesOf(service, project).get()).docs;
  const bogusId = batchDocId([eventDocId('bogus')]);
  await batchesOf(service, project).doc(bogusId).set({ ...landed.data(), events: Buffer.from('not a payload') });

  await resolveEventIdentities({ projectId: project.projectId, env: 'test', batchDocIds: [bogusId, landed.id] }, service.deps);
  expect((await eventsOf(service, project).get()).size).toBe(2);
  expect((await batchesOf(service, project).get()).docs.map((doc) => doc.id)).toEqual([bogusId]);

  // An erasure in the partition is not stopped by it either.
  const identified = await service.request().post('/v1/identify').set('Service-Api-Key', project.ios.test.secret).send({ userId: 'unreadable-user', anonymousId: 'device-1' });
  expect(identified.status).toBe(200);
  const forgot = await service.request().post('/v1/identity/forget').set('Service-Api-Key', project.ios.test.secret).send({ customerId: identified.body.serviceCustomerId });
  expect(forgot.status).toBe(200);
  await service.tasks.drain();
  expect((await eventsOf(service, project).get()).size).toBe(0);
  expect((await batchesOf(service, project).doc(bogusId).get()).exists).toBe(true);
  held.splice(0);
  await release();
});
