/**
 * Landings of one partition whose commits complete together share identity-resolution tasks
 * (events/landingTasks.ts): at most MAX_BATCHES_PER_TASK batches per task, never two partitions
 * in one task, every request answered only after the tasks naming its batches are enqueued, and
 * an enqueue failure failing every request of its task (their retries land again, counted once).
 */
import { Timestamp } from 'firebase-admin/firestore';
import { groupIntoTasks, LandingTasks } from '../../functions/src/events/landingTasks';
import { batchDocId, eventDocId } from '../../functions/src/events/model';
import { resolveEventIdentities } from '../../functions/src/events/resolution';
import { identityResolutionTask, MAX_BATCHES_PER_TASK } from '../../functions/src/events/resolutionTask';
import { EnvScope } from '../../functions/src/store/scope';
import type { EnqueueOptions, QueueName, TaskQueue } from '../../functions/src/tasks/queue';
import { createTestService, seedProject, type SeededProject, type TestService } from '../support/harness';
import { event, events, postEvents } from './support';

interface Enqueued {
  queue: QueueName;
  payload: Record<string, unknown>;
  id: string;
}

/** A queue that records what it is given; `fail` decides, per task, whether the enqueue throws. */
function recordingQueue(fail: (payload: Record<string, unknown>) => boolean = () => false): TaskQueue & { given: Enqueued[] } {
  const given: Enqueued[] = [];
  return {
    given,
    enqueue: async (queue: QueueName, payload: Record<string, unknown>, options: EnqueueOptions) => {
      given.push({ queue, payload, id: options.id });
      if (fail(payload)) throw new Error('Cloud Tasks unavailable');
      return 'enqueued';
    },
  };
}

const landedAt = Timestamp.fromMillis(1_800_000_000_000);
const ids = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => batchDocId([eventDocId(`${prefix}-${i}`)]));

describe('grouping landings into tasks', () => {
  it('packs batches in arrival order, at most MAX_BATCHES_PER_TASK per task; a landing may span two', () => {
    const [a, b, c, d, e, f] = ids('pack', 6);
    const landings = [[a], [b, c], [d], [e, f]].map((batchDocIds) => ({ batches: batchDocIds.map((batchDocId) => ({ batchDocId, landedAt })) }));
    const tasks = groupIntoTasks(landings);
    expect(MAX_BATCHES_PER_TASK).toBe(4);
    expect(tasks.map((task) => task.batches.map((batch) => batch.batchDocId))).toEqual([
      [a, b, c, d],
      [e, f],
    ]);
    expect(tasks.map((task) => task.landings.map((landing) => landings.indexOf(landing)))).toEqual([[0, 1, 2], [3]]);
    const spanning = groupIntoTasks([{ batches: ids('one', 3).map((batchDocId) => ({ batchDocId, landedAt })) }, { batches: ids('two', 3).map((batchDocId) => ({ batchDocId, landedAt })) }]);
    expect(spanning.map((task) => task.batches.length)).toEqual([4, 2]);
    expect(spanning[0].landings).toHaveLength(2); // the second landing's first batch rides in the first task
    expect(spanning[1].landings).toEqual([spanning[0].landings[1]]);
  });

  it('names a batch document landed twice in one turn once, and both landings wait for its task', () => {
    const [a, b] = ids('twice', 2);
    const later = Timestamp.fromMillis(landedAt.toMillis() + 5);
    const first = { batches: [{ batchDocId: a, landedAt }] };
    const other = { batches: [{ batchDocId: b, landedAt }] };
    const retry = { batches: [{ batchDocId: a, landedAt: later }] };
    const tasks = groupIntoTasks([first, other, retry]);
    expect(tasks).toHaveLength(1);
    expect(tasks[0].batches.map((batch) => batch.batchDocId)).toEqual([a, b]);
    expect(tasks[0].landings).toEqual([first, other, retry]);
  });

  it('enqueues landings of one turn together, one task per four batches, with the id of its batches and their commit times', async () => {
    const queue = recordingQueue();
    const tasks = new LandingTasks(queue);
    const batches = ids('turn', 6);
    const later = Timestamp.fromMillis(landedAt.toMillis() + 1);
    await Promise.all(batches.map((id, i) => tasks.enqueue('proj_1', 'test', [id], i === 5 ? later : landedAt)));
    expect(queue.given.map((task) => task.payload.batchDocIds)).toEqual([batches.slice(0, 4), batches.slice(4)]);
    expect(queue.given[0].id).toBe(identityResolutionTask('proj_1', 'test', batches.slice(0, 4).map((batchDocId) => ({ batchDocId, landedAt }))).id);
    expect(queue.given[1].id).toBe(
      identityResolutionTask('proj_1', 'test', [
        { batchDocId: batches[4], landedAt },
        { batchDocId: batches[5], landedAt: later },
      ]).id,
    );
    expect(queue.given.every((task) => task.queue === 'identityResolution')).toBe(true);
  });

  it('never puts two partitions (projects or environments) in one task', async () => {
    const queue = recordingQueue();
    const tasks = new LandingTasks(queue);
    const [a, b, c, d] = ids('partitions', 4);
    await Promise.all([tasks.enqueue('proj_1', 'test', [a], landedAt), tasks.enqueue('proj_1', 'live', [b], landedAt), tasks.enqueue('proj_2', 'test', [c], landedAt), tasks.enqueue('proj_1', 'test', [d], landedAt)]);
    const byPartition = Object.fromEntries(queue.given.map((task) => [`${task.payload.projectId}/${task.payload.env}`, task.payload.batchDocIds]));
    expect(byPartition).toEqual({ 'proj_1/test': [a, d], 'proj_1/live': [b], 'proj_2/test': [c] });
    expect(queue.given).toHaveLength(3);
  });

  it('a landing alone is enqueued at once, and one arriving after the flush gets a task of its own', async () => {
    const queue = recordingQueue();
    const tasks = new LandingTasks(queue);
    const [a, b] = ids('alone', 2);
    await tasks.enqueue('proj_1', 'test', [a], landedAt);
    expect(queue.given).toHaveLength(1);
    await tasks.enqueue('proj_1', 'test', [b], landedAt);
    expect(queue.given.map((task) => task.payload.batchDocIds)).toEqual([[a], [b]]);
  });

  it('a failed enqueue fails every landing of its task, and only those; a landing spanning it fails too', async () => {
    const batches = ids('fail', 7);
    const queue = recordingQueue((payload) => (payload.batchDocIds as string[]).includes(batches[5]));
    const tasks = new LandingTasks(queue);
    // Landings: [0], [1, 2], [3, 4] (spans the two tasks), [5], [6]; the second task (4, 5, 6) fails.
    const landings = [[0], [1, 2], [3, 4], [5], [6]].map((indexes) => tasks.enqueue('proj_1', 'test', indexes.map((i) => batches[i]), landedAt));
    const outcomes = await Promise.allSettled(landings);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected', 'rejected']);
    expect(queue.given.map((task) => task.payload.batchDocIds)).toEqual([batches.slice(0, 4), batches.slice(4)]);
  });
});

describe('through the route: requests whose commits complete together', () => {
  /** Holds every partition commit until `count` of them have been made, then lets them all return in one turn. */
  function commitsCompletingTogether(count: number) {
    const original = EnvScope.prototype.commit;
    let arrived = 0;
    let release!: () => void;
    const together = new Promise<void>((resolve) => (release = resolve));
    const spy = jest.spyOn(EnvScope.prototype, 'commit').mockImplementation(async function (this: EnvScope, batch) {
      const time = await original.call(this, batch);
      arrived += 1;
      if (arrived === count) release();
      await together;
      return time;
    });
    return { restore: () => spy.mockRestore() };
  }

  function serviceWithHeldResolution(fail: () => boolean = () => false) {
    const service = createTestService();
    const held: Enqueued[] = [];
    const enqueue = service.tasks.enqueue.bind(service.tasks);
    service.tasks.enqueue = async (queue, payload, options) => {
      if (queue !== 'identityResolution') return enqueue(queue, payload, options);
      if (fail()) throw new Error('Cloud Tasks unavailable');
      held.push({ queue, payload, id: options.id });
      return 'enqueued';
    };
    const release = async () => {
      for (const task of held.splice(0)) await resolveEventIdentities(task.payload, service.deps);
    };
    return { service, held, release };
  }

  const storedIds = async (service: TestService, project: SeededProject, env: 'test' | 'live' = 'test') =>
    (await service.deps.db.collection(`projects/${project.projectId}/envs/${env}/events`).get()).docs.map((doc) => doc.id).sort();
  const pendingBatches = async (service: TestService, project: SeededProject) => (await service.deps.db.collection(`projects/${project.projectId}/envs/test/eventBatches`).get()).size;

  it('three landings of one partition share one task; another project’s gets its own; an invalid and a throttled request enqueue nothing', async () => {
    const { service, held, release } = serviceWithHeldResolution();
    const [one, two] = [await seedProject(service), await seedProject(service)];
    // Empty one's live bucket (burst 1,000 events, the clock stands still): its next batch is refused whole.
    for (let i = 0; i < 10; i++) expect((await postEvents(service, one, { events: events(100, `drain-${i}`) }, { env: 'live' })).status).toBe(202);
    await release();

    const gate = commitsCompletingTogether(4);
    let answers;
    try {
      answers = await Promise.all([
        postEvents(service, one, { events: events(3, 'group-a') }),
        postEvents(service, one, { events: events(2, 'group-b') }),
        postEvents(service, one, { events: [event({ eventId: 'invalid-0' }), event({ eventId: 'invalid-1', name: '' })] }),
        postEvents(service, one, { events: events(2, 'throttled') }, { env: 'live' }),
        postEvents(service, one, { events: events(1, 'group-c') }),
        postEvents(service, two, { events: events(2, 'other-project') }),
      ]);
    } finally {
      gate.restore();
    }
    expect(answers.map((res) => res.status)).toEqual([202, 202, 400, 429, 202, 202]);
    expect(answers.map((res) => res.body.received)).toEqual([3, 2, undefined, undefined, 1, 2]);

    const ofOne = held.filter((task) => task.payload.projectId === one.projectId);
    expect(ofOne).toHaveLength(1);
    expect(ofOne[0].payload.env).toBe('test');
    const docIds = (prefix: string, count: number) => events(count, prefix).map((e) => eventDocId(e.eventId as string));
    expect([...(ofOne[0].payload.batchDocIds as string[])].sort()).toEqual([batchDocId(docIds('group-a', 3)), batchDocId(docIds('group-b', 2)), batchDocId(docIds('group-c', 1))].sort());
    expect(held.filter((task) => task.payload.projectId === two.projectId).map((task) => task.payload.batchDocIds)).toEqual([[batchDocId(docIds('other-project', 2))]]);
    expect(held).toHaveLength(2);

    await release();
    expect(await storedIds(service, one)).toEqual([...docIds('group-a', 3), ...docIds('group-b', 2), ...docIds('group-c', 1)].sort());
    expect(await storedIds(service, two)).toEqual(docIds('other-project', 2).sort());
    expect(await pendingBatches(service, one)).toBe(0);
    expect((await storedIds(service, one, 'live')).filter((id) => docIds('throttled', 2).includes(id))).toEqual([]);
  });

  it('a retry landing beside its first attempt: one task names the batch once, both answer the same received, each event stored once', async () => {
    const { service, held, release } = serviceWithHeldResolution();
    const project = await seedProject(service);
    const body = { events: events(4, 'twice-in-a-turn') };
    const gate = commitsCompletingTogether(2);
    let answers;
    try {
      answers = await Promise.all([postEvents(service, project, body), postEvents(service, project, body)]);
    } finally {
      gate.restore();
    }
    expect(answers.map((res) => [res.status, res.body.received])).toEqual([
      [202, 4],
      [202, 4],
    ]);
    expect(held.map((task) => task.payload.batchDocIds)).toEqual([[batchDocId(events(4, 'twice-in-a-turn').map((e) => eventDocId(e.eventId as string)))]]);
    await release();
    expect(await storedIds(service, project)).toHaveLength(4);
    expect(await pendingBatches(service, project)).toBe(0);
  });

  it('an enqueue failure fails every request of the group; their retries land again and each event is stored once', async () => {
    let failing = true;
    const { service, held, release } = serviceWithHeldResolution(() => failing);
    const project = await seedProject(service);
    const bodies = [{ events: events(3, 'retry-a') }, { events: events(2, 'retry-b') }, { events: events(4, 'retry-c') }];

    const gate = commitsCompletingTogether(3);
    let failed;
    try {
      failed = await Promise.all(bodies.map((body) => postEvents(service, project, body)));
    } finally {
      gate.restore();
    }
    expect(failed.map((res) => res.status)).toEqual([500, 500, 500]);
    expect(failed.every((res) => res.body.error.code === 'internal_error')).toBe(true);
    expect(held).toHaveLength(0);
    expect(await pendingBatches(service, project)).toBe(3); // landed, task lost: the retention sweep's if nobody retries

    failing = false;
    const retried = await Promise.all(bodies.map((body) => postEvents(service, project, body)));
    expect(retried.map((res) => [res.status, res.body.received])).toEqual([
      [202, 3],
      [202, 2],
      [202, 4],
    ]);
    await release();
    expect(await storedIds(service, project)).toHaveLength(9);
    expect(await pendingBatches(service, project)).toBe(0);
  });
});
