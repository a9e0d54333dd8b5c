/**
 * Guarantees of the deployed task-queue functions (index.ts): the `onTaskDispatched` function
 * that Cloud Tasks calls runs the same handler as the in-process queue, on a payload that the
 * request path really enqueued (identity resolution, webhook fan-out). Driven through firebase-functions-test's `wrap`.
 */
import supertest from 'supertest';
import functionsTest from 'firebase-functions-test';
import { createDeps } from '../../functions/src/app/deps';
import { ALL_ROUTES } from '../../functions/src/app/groups';
import { ManualClock } from '../support/manualClock';
import { createServiceApp } from '../../functions/src/app/serviceApp';
import type { EnqueueOptions, QueueName, TaskQueue } from '../../functions/src/tasks/queue';
import { createTestService, seedProject } from '../support/harness';
import { checkResponse } from '../support/responseCheck';
import { requireDeployedEntry } from '../support/functionsEnv';

/** A queue that only records: the test hands the payload to the deployed function itself. */
class RecordingQueue implements TaskQueue {
  readonly tasks: { queue: QueueName; payload: Record<string, unknown>; options: EnqueueOptions }[] = [];
  async enqueue(queue: QueueName, payload: Record<string, unknown>, options: EnqueueOptions) {
    this.tasks.push({ queue, payload, options });
    return 'enqueued' as const;
  }
}

const fft = functionsTest({ projectId: process.env.GCLOUD_PROJECT });
afterAll(() => fft.cleanup());

it('identityResolutionTask attaches the customer to the events a batch landed', async () => {
  const seeding = createTestService();
  const project = await seedProject(seeding);
  const queue = new RecordingQueue();
  const deps = createDeps({ tasks: queue, clock: new ManualClock(Date.now()) });
  const request = supertest(createServiceApp(ALL_ROUTES, deps, { checkResponse }));

  const identified = await request.post('/v1/identify').set('Authorization', `Bearer ${project.ios.test.secret}`).send({ userId: 'task-user', anonymousId: 'task-device' });
  expect(identified.status).toBe(200);
  const landed = await request
    .post('/v1/events')
    .set('Authorization', `Bearer ${project.ios.test.secret}`)
    .send({ events: [{ name: 'opened', eventId: 'task-evt-1', anonymousId: 'task-device' }] });
  expect(landed.status).toBe(202);
  const task = queue.tasks.find((t) => t.queue === 'identityResolution');
  expect(task).toBeDefined();

  const deployed = requireDeployedEntry();
  const wrapped = fft.wrap(deployed.identityResolutionTask as never);
  await wrapped({ data: task!.payload } as never);

  const events = await deps.db.collection(`projects/${project.projectId}/envs/test/events`).get();
  expect(events.docs.map((d) => d.get('serviceCustomerId'))).toEqual([identified.body.serviceCustomerId]);
});

it('webhookFanoutTask fans out the event a grant recorded (deployed handler, Cloud Tasks payload)', async () => {
  const seeding = createTestService();
  const project = await seedProject(seeding);
  const queue = new RecordingQueue();
  const deps = createDeps({ tasks: queue, clock: new ManualClock(Date.now()) });
  const request = supertest(createServiceApp(ALL_ROUTES, deps, { checkResponse }));

  const identified = await request.post('/v1/identify').set('Authorization', `Bearer ${project.ios.test.secret}`).send({ userId: 'fanout-user', anonymousId: 'fanout-device' });
  const customerId = identified.body.serviceCustomerId as string;
  const granted = await request
    .post(`/v1/server/customers/${customerId}/grant`)
    .set('Authorization', `Bearer ${project.ios.test.secret}`)
    .send({ entitlementKey: 'pro', duration: 'P30D', reason: 'Deployed fan-out task suite grant' });
  expect(granted.status).toBe(200);
  const task = queue.tasks.find((t) => t.queue === 'webhookFanout');
  expect(task).toBeDefined();
  const eventRef = deps.db.doc(`projects/${project.projectId}/envs/test/webhookEvents/${task!.payload.eventId as string}`);
  expect((await eventRef.get()).get('fannedOutAt')).toBeNull();

  // No endpoint is registered in this project: the deployed handler enqueues no delivery, only marks the event.
  const deployed = requireDeployedEntry();
  const wrapped = fft.wrap(deployed.webhookFanoutTask as never);
  await wrapped({ data: task!.payload } as never);
  expect((await eventRef.get()).get('fannedOutAt')).toEqual(expect.any(Number));
});
