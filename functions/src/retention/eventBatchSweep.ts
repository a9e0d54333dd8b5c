import type { BackgroundDeps } from '../tasks/background';
import { MINUTE } from '../clock';
import { EVENT_BATCHES } from '../events/model';
import { identityResolutionTask, MAX_BATCHES_PER_TASK } from '../events/resolutionTask';
import { isEnv, type Env } from '../store/env';
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
  const stale = await deps.db
    .collectionGroup(EVENT_BATCHES)
    .where('receivedAt', '<=', now - STALE_BATCH_AFTER_MS)
    .orderBy('receivedAt')
    .limit(SWEEP_LIMIT)
    .select()
    .get();
  const byPartition = new Map<string, { projectId: string; env: Env; ids: string[] }>();
  for (const doc of stale.docs) {
    const [root, projectId, envs, env] = doc.ref.path.split('/');
    if (root !== 'projects' || envs !== 'envs' || !isEnv(env)) continue;
    const key = `${projectId}/${env}`;
    const partition = byPartition.get(key) ?? { projectId, env, ids: [] };
    partition.ids.push(doc.id);
    byPartition.set(key, partition);
  }
  let tasks = 0;
  for (const { projectId, env, ids } of byPartition.values()) {
    for (let start = 0; start < ids.length; start += MAX_BATCHES_PER_TASK) {
      // The sweep's time is part of the id: a batch still stuck an hour later is enqueued again.
      const task = identityResolutionTask(projectId, env, ids.slice(start, start + MAX_BATCHES_PER_TASK), `sweep-${now}`);
      try {
        await deps.tasks.enqueue('identityResolution', task.payload, { id: task.id });
        tasks += 1;
      } catch (err) {
        retentionLogs.eventBatchSweepFailed(projectId, env, err instanceof Error ? err.message : String(err));
      }
    }
  }
  return { stale: stale.size, tasks };
}
