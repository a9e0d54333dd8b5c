import type { RootDeps } from '../deps';
import { sweepDueExpiries, type ExpirySweepReport } from '../../entitlements/expirySweep';
import { outboxLogs } from '../../webhooks/outboxLogs';
import { relayUnfannedEvents, type RelayReport } from '../../webhooks/relay';
import { retireExpiredSigningSecrets, type SecretRetirementReport } from '../../webhooks/secretRetirement';
import { WEBHOOK_WORKER_INTERVAL_MS } from '../../webhooks/outboxSchedule';

/**
 * The webhook worker, every minute (`webhookWorker` in index.ts; in-process under `npm start`):
 * records the entitlement ends that passed (`entitlement.expired`), relays outbox events whose
 * fan-out was lost, and deletes signing secrets whose grace ended. All are idempotent: runs may
 * overlap each other and the tasks.
 */
export interface WebhookWorkerReport {
  expiries: ExpirySweepReport;
  relay: RelayReport;
  signingSecrets: SecretRetirementReport;
}

export async function runWebhookWorker(deps: RootDeps): Promise<WebhookWorkerReport> {
  const report = { expiries: await sweepDueExpiries(deps), relay: await relayUnfannedEvents(deps), signingSecrets: await retireExpiredSigningSecrets(deps) };
  // Every minute: only a run that found something is worth a log line.
  if (report.expiries.due + report.relay.waiting + report.signingSecrets.due > 0) outboxLogs.workerRunCompleted({ ...report });
  return report;
}

/** Runs the worker every interval in this process (local only), never two runs at once. `stop` waits at most `graceMs` for a run (it is idempotent: the next start redoes it). */
export function startLocalWebhookWorker(deps: RootDeps, intervalMs = WEBHOOK_WORKER_INTERVAL_MS): { stop(graceMs?: number): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    running = runWebhookWorker(deps)
      .catch((err) => outboxLogs.workerRunFailed(err instanceof Error ? err.message : String(err)))
      .finally(() => {
        busy = false;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop(graceMs = 1000) {
      clearInterval(timer);
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([running, new Promise((resolve) => (grace = setTimeout(resolve, graceMs)))]);
      clearTimeout(grace);
    },
  };
}
