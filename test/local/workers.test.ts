/**
 * `tessera workers run` outside the emulator suite (against `npm start`'s emulator or a real
 * project) runs the worker's own code in the CLI's process: here the retention worker finishes
 * an erasure whose task was lost, and the answer carries the worker's report. Only the two
 * workers exist.
 */
import { MINUTE } from '../../functions/src/clock';
import { COMMANDS } from '../../functions/src/cli/registry';
import { erasureTaskId, pendingErasureRef } from '../../functions/src/identity/erasureModel';
import { customerRef } from '../../functions/src/customers/refs';
import { LOST_TASK_AFTER_MS } from '../../functions/src/retention/erasureSweep';
import { EnvScope } from '../../functions/src/store/scope';
import { createTestService, lockHeaders, seedProject, type TestService } from '../support/harness';
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

it('offers exactly the two workers', () => {
  expect(COMMANDS.filter((c) => c.name.startsWith('workers ')).map((c) => c.name).sort()).toEqual(['workers run retention', 'workers run webhooks']);
});
