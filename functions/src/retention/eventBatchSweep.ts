import type { BackgroundDeps } from '../tasks/background';
import { MINUTE } from '../clock';
import { EVENT_BATCHES, landedBatchConverter } from '../events/model';
import { identityResolutionTask, MAX_BATCHES_PER_TASK } from '../events/resolutionTask';
import { byPartition, queryAcrossPartitions } from '../store/partitions';
import { retentionLogs } from './logs';

/**
 * A landed batch still waiting after this long has lost its identity-resolution task (never
 * enqueued, or gave up after every retry): the queue's whole retry schedule (5 attempts,
 * backoff up to 300 s) fits well inside it.
 */
export const STALE_BATCH_AFTER_MS = 30 * MINUTE;
const SWEEP_LIMIT = 500;

export interface EventBatchSweepReport {
  stale: number;
  tasks: number;
}

/**
 * Enqueues identity resolution again for batches that have waited too long, oldest first, one
 * task per partition and up to MAX_BATCHES_PER_TASK batches. The batches stay in the store until
 * a task has stored their events, so a lost task delays telemetry but never loses it.
 */
export async function sweepStaleEventBatches(deps: BackgroundDeps): Promise<EventBatchSweepReport> {
  const now = deps.clock.now();
  const stale = await queryAcrossPartitions(deps.db, EVENT_BATCHES, landedBatchConverter, (batches) =>
    batches.where('receivedAt', '<=', now - STALE_BATCH_AFTER_MS).orderBy('receivedAt').limit(SWEEP_LIMIT).select(),
  );
  let tasks = 0;
  for (const { scope, docs } of byPartition(stale.documents)) {
    const { projectId, env } = scope;
    const ids = docs.map((doc) => doc.id);
    for (let start = 0; start < ids.length; start += MAX_BATCHES_PER_TASK) {
      // The sweep's time is part of the id: a batch still stuck an hour later is enqueued again.
      const batches = ids.slice(start, start + MAX_BATCHES_PER_TASK).map((batchDocId) => ({ batchDocId, landedAt: `sweep-${now}` }));
      const task = identityResolutionTask(projectId, env, batches);
      try {
        await deps.tasks.enqueue('identityResolution', task.payload, { id: task.id });
        tasks += 1;
      } catch (err) {
        retentionLogs.eventBatchSweepFailed(projectId, env, err instanceof Error ? err.message : String(err));
      }
    }
  }
  return { stale: stale.found, tasks };
}
