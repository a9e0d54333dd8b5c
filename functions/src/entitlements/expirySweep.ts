import type { BackgroundDeps } from '../tasks/background';
import { MINUTE } from '../clock';
import { queryAcrossPartitions } from '../store/partitions';
import { dispatchWebhookEvents } from '../webhooks/dispatch';
import { outboxLogs } from '../webhooks/outboxLogs';
import { recordDueExpiries } from './expiry';
import { PROJECTIONS, projectionConverter } from './model';

/**
 * Finds the customers with an end due and records it (expiry.ts), then enqueues the events'
 * fan-out. One bounded, indexed query across partitions: projections whose `nextExpiryAt`
 * (kept by the one writer) is at least `EXPIRY_GRACE_MS` past, oldest first
 * (collection-group index on `projections.nextExpiryAt`). The request paths read nothing more.
 *
 * The grace lets a renewal that arrives just after the old end count as a renewal; with the
 * worker every minute, an expiry is recorded 1–2 minutes after its `validUntil` and delivered
 * well within the 5 minutes issue 13 allows.
 */
export const EXPIRY_GRACE_MS = MINUTE;
const SWEEP_LIMIT = 500;
const PARALLEL = 4;

export interface ExpirySweepReport {
  due: number;
  recorded: number;
  failed: number;
}

export async function sweepDueExpiries(deps: BackgroundDeps): Promise<ExpirySweepReport> {
  const now = deps.clock.now();
  const due = await queryAcrossPartitions(deps.db, PROJECTIONS, projectionConverter, (projections) =>
    projections.where('nextExpiryAt', '<=', now - EXPIRY_GRACE_MS).orderBy('nextExpiryAt').limit(SWEEP_LIMIT).select(),
  );
  const report: ExpirySweepReport = { due: due.found, recorded: 0, failed: 0 };
  const customers = due.documents;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < customers.length) {
      const { scope, doc } = customers[next++];
      const { projectId, env } = scope;
      const customerId = doc.id;
      try {
        const { recorded, fanouts } = await recordDueExpiries(scope, customerId, now);
        report.recorded += recorded;
        await dispatchWebhookEvents(deps.tasks, scope, fanouts);
      } catch (err) {
        report.failed += 1;
        outboxLogs.expiryFailed(projectId, env, customerId, err instanceof Error ? err.message : String(err));
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return report;
}
