/**
 * `tessera workers run` outside the emulator suite (against `npm start`'s emulator or a real
 * project) runs the worker's own code in the CLI's process: here the retention worker finishes
 * an erasure whose task was lost, the rollup worker compacts a partition's shards, and the
 * answer carries the worker's report. Exactly the deployed scheduled workers are offered.
 */
import { MINUTE } from '../../functions/src/clock';
import { COMMANDS } from '../../functions/src/cli/registry';
import { erasureTaskId, pendingErasureRef } from '../../functions/src/identity/erasureModel';
import { customerRef } from '../../functions/src/customers/refs';
import { LOST_TASK_AFTER_MS } from '../../functions/src/retention/erasureSweep';
import { EnvScope } from '../../functions/src/store/scope';
import { createTestService, lockHeaders, seedProject, type TestService } from '../support/harness';
import { SCHEDULED_WORKERS } from '../../functions/src/app/workers/scheduled';
import { METRIC, SUBSCRIBER_ROLLUPS } from '../../functions/src/store/rollups/model';
import { hourOf, periodKeys } from '../../functions/src/store/rollups/periods';
import { seriesKey, writeRollupDeltas } from '../../functions/src/store/rollups/rollupWrite';
import { shardDocId } from '../../functions/src/store/rollups/shards';
import { operatorCommands } from '../support/operatorCommands';

let service: TestService;
const { tessera } = operatorCommands(() => service);

beforeAll(() => {
  service = createTestService();
});

it('runs the retention worker in this process and reports what it did', async () => {
  const project = await seedProject(service);
  const identified = await service.request().post('/v1/identify').set({ Authorization: `Bearer ${project.ios.test.publishable}`, ...lockHeaders('ios') }).send({ userId: 'worker-user', anonymousId: 'worker-device' });
  const customerId: string = identified.body.serviceCustomerId;
  // A forget whose erasure task was lost: customer pending, ledger entry older than the cutoff.
  await customerRef(new EnvScope(service.deps.db, project.projectId, 'test'), customerId).update({ status: 'erasure_pending' });
  const payload = { projectId: project.projectId, env: 'test' as const, customerId };
  await pendingErasureRef(service.deps.db, erasureTaskId(payload)).set({ ...payload, taskId: erasureTaskId(payload), requestedAt: service.clock.now() - LOST_TASK_AFTER_MS - MINUTE });

  const result = await tessera('workers run retention', {});
  expect(result).toMatchObject({ worker: 'retention', function: 'retentionWorker', ran: 'in this process' });
  expect(result.report.erasures.erased).toBeGreaterThanOrEqual(1);
  expect((await pendingErasureRef(service.deps.db, erasureTaskId(payload)).get()).exists).toBe(false);
  expect((await customerRef(new EnvScope(service.deps.db, project.projectId, 'test'), customerId).get()).get('status')).toBe('erased');
});

it('runs the rollup worker in this process: shards of a recent period move into shard 0', async () => {
  const project = await seedProject(service);
  const scope = new EnvScope(service.deps.db, project.projectId, 'test');
  const hour = hourOf(service.clock.now());
  const batch = service.deps.db.batch();
  writeRollupDeltas(batch, scope, SUBSCRIBER_ROLLUPS, 3, [{ metric: METRIC.active, series: seriesKey('pro', 'stripe'), hour, amount: 2, running: true }]);
  await batch.commit();
  const day = periodKeys(hour).day;
  expect((await scope.get(scope.doc(SUBSCRIBER_ROLLUPS, shardDocId(day, 3)))).exists).toBe(true);

  const result = await tessera('workers run rollups', {});
  expect(result).toMatchObject({ worker: 'rollups', function: 'rollupWorker', ran: 'in this process' });
  expect(result.report.periodsCompacted).toBeGreaterThanOrEqual(1);
  expect(result.report.failed).toBe(0);
  expect((await scope.get(scope.doc(SUBSCRIBER_ROLLUPS, shardDocId(day, 3)))).exists).toBe(false);
  expect((await scope.get(scope.doc(SUBSCRIBER_ROLLUPS, shardDocId(day, 0)))).exists).toBe(true);
});

it('offers exactly the deployed scheduled workers', () => {
  expect(COMMANDS.filter((c) => c.name.startsWith('workers ')).map((c) => c.name).sort()).toEqual(['workers run retention', 'workers run rollups', 'workers run webhooks']);
  expect(Object.keys(SCHEDULED_WORKERS).sort()).toEqual(['retention', 'rollups', 'webhooks']);
});
