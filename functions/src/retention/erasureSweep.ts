import type { BackgroundDeps } from '../tasks/background';
import { MINUTE } from '../clock';
import { runErasure } from './erasure';
import { PENDING_ERASURES, pendingErasureConverter } from '../identity/erasureModel';
import { retentionLogs } from './logs';

/**
 * An erasure whose task has had this long is presumed lost (never enqueued, or gave up after
 * every retry): the task queue's whole retry schedule (5 attempts, backoff up to 300 s) fits
 * well inside it. Pending erasures are finished on the worker's next run, so the 30-day SLA
 * holds with weeks to spare even if the queue is down for days.
 */
export const LOST_TASK_AFTER_MS = 30 * MINUTE;
const SWEEP_LIMIT = 200;

export interface ErasureSweepReport {
  examined: number;
  erased: number;
  failed: number;
}

/** Finishes every erasure requested before the cutoff that is still pending, oldest first. */
export async function sweepLostErasures(deps: BackgroundDeps): Promise<ErasureSweepReport> {
  const cutoff = deps.clock.now() - LOST_TASK_AFTER_MS;
  const pending = await deps.db.collection(PENDING_ERASURES).withConverter(pendingErasureConverter).where('requestedAt', '<=', cutoff).orderBy('requestedAt').limit(SWEEP_LIMIT).get();
  const report: ErasureSweepReport = { examined: pending.size, erased: 0, failed: 0 };
  for (const doc of pending.docs) {
    const item = doc.data();
    try {
      const outcome = await runErasure(deps, { projectId: item.projectId, env: item.env, customerId: item.customerId });
      if (outcome === 'erased') report.erased += 1;
    } catch (err) {
      report.failed += 1;
      retentionLogs.erasureFailed(item.projectId, item.env, item.customerId, err instanceof Error ? err.message : String(err));
    }
  }
  return report;
}
