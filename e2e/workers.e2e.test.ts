/**
 * Scheduled workers under the suite: `tessera workers run retention` makes Cloud Scheduler's
 * call to the suite's functions emulator, which runs `retentionWorker` as deployed; it finishes
 * an erasure whose task was lost (a customer pending erasure, its ledger entry over 30 minutes old).
 */
import { db } from '../functions/src/store/firestore';
import { erasureTaskId, pendingErasureRef, type PendingErasure } from '../functions/src/identity/erasureModel';
import { LOST_TASK_AFTER_MS } from '../functions/src/retention/erasureSweep';
import { customerRef } from '../functions/src/customers/refs';
import { EnvScope } from '../functions/src/store/scope';
import { api, eventually, IOS_BUNDLE, IOS_TEST_PUBLISHABLE, PROJECT, suiteOutput, tessera } from './support/suite';

const run = Date.now().toString(36);

it('`tessera workers run retention` runs the scheduled retention worker inside the suite', async () => {
  const userId = `e2e-lost-erasure-${run}`;
  const identified = await api('POST', '/v1/identify', IOS_TEST_PUBLISHABLE, { userId, anonymousId: `e2e-lost-device-${run}` }, IOS_BUNDLE);
  const customerId: string = identified.body.serviceCustomerId;
  // A forget whose erasure task was lost: the customer marked pending and its ledger entry, older than the cutoff.
  await customerRef(new EnvScope(db(), PROJECT, 'test'), customerId).update({ status: 'erasure_pending' });
  const payload = { projectId: PROJECT, env: 'test' as const, customerId };
  const taskId = erasureTaskId(payload);
  const pending: PendingErasure = { ...payload, taskId, requestedAt: Date.now() - LOST_TASK_AFTER_MS - 60_000 };
  await pendingErasureRef(db(), taskId).set(pending);
  const completedBefore = (suiteOutput().match(/retention run completed/g) ?? []).length;

  const result = tessera('workers', 'run', 'retention');
  expect(result).toMatchObject({ worker: 'retention', function: 'retentionWorker', emulatorFunction: expect.stringMatching(/^us-central1-retentionWorker-\d+$/), status: 200 });

  // The command answers once the run is done.
  expect((await pendingErasureRef(db(), taskId).get()).exists).toBe(false);
  const read = await api('GET', `/v1/entitlements?userId=${encodeURIComponent(userId)}`, IOS_TEST_PUBLISHABLE, undefined, IOS_BUNDLE);
  expect(read.body.serviceCustomerId).toBe('');
  // It ran as the deployed function does: the functions emulator logged the worker's report.
  await eventually('the worker’s log line', async () => (suiteOutput().match(/retention run completed/g) ?? []).length > completedBefore, 30_000);
});

it('an unknown worker is a usage error, not a run', () => {
  expect(() => tessera('workers', 'run', 'everything')).toThrow(/Unknown command/);
});
