/**
 * Scheduled workers under the suite: `tessera workers run retention` publishes the scheduler's
 * message on the Pub/Sub emulator, and the suite's functions emulator runs `retentionWorker`,
 * which finishes an erasure whose task was lost (a pending erasure older than 30 minutes).
 */
import { db } from '../functions/src/store/firestore';
import { erasureTaskId, pendingErasureRef, type PendingErasure } from '../functions/src/identity/erasureModel';
import { LOST_TASK_AFTER_MS } from '../functions/src/retention/erasureSweep';
import { api, eventually, IOS_BUNDLE, IOS_TEST_PUBLISHABLE, PROJECT, suiteOutput, tessera } from './support/suite';

const run = Date.now().toString(36);

it('`tessera workers run retention` runs the scheduled retention worker inside the suite', async () => {
  const userId = `e2e-lost-erasure-${run}`;
  const identified = await api('POST', '/v1/identify', IOS_TEST_PUBLISHABLE, { userId, anonymousId: `e2e-lost-device-${run}` }, IOS_BUNDLE);
  const customerId: string = identified.body.serviceCustomerId;
  // A forget whose erasure task was lost: only its ledger entry exists, older than the cutoff.
  const payload = { projectId: PROJECT, env: 'test' as const, customerId };
  const taskId = erasureTaskId(payload);
  const pending: PendingErasure = { ...payload, taskId, requestedAt: Date.now() - LOST_TASK_AFTER_MS - 60_000 };
  await pendingErasureRef(db(), taskId).set(pending);
  const completedBefore = (suiteOutput().match(/retention run completed/g) ?? []).length;

  const result = tessera('workers', 'run', 'retention');
  expect(result).toMatchObject({ worker: 'retention', function: 'retentionWorker', topic: expect.stringMatching(/^firebase-schedule-.*retentionWorker$/), messageId: expect.any(String) });

  await eventually('the retention worker to finish the lost erasure', async () => !(await pendingErasureRef(db(), taskId).get()).exists);
  const read = await api('GET', `/v1/entitlements?userId=${encodeURIComponent(userId)}`, IOS_TEST_PUBLISHABLE, undefined, IOS_BUNDLE);
  expect(read.body.serviceCustomerId).toBe('');
  // It ran as the deployed function does: the functions emulator logged the worker's report.
  await eventually('the worker’s log line', async () => (suiteOutput().match(/retention run completed/g) ?? []).length > completedBefore, 30_000);
});

it('an unknown worker is a usage error, not a run', () => {
  expect(() => tessera('workers', 'run', 'everything')).toThrow(/Unknown command/);
});
