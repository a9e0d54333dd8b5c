import type { RootDeps } from '../deps';
import { sweepDueExpiries, type ExpirySweepReport } from '../../entitlements/expirySweep';
import { outboxLogs } from '../../webhooks/outboxLogs';
import { relayUnfannedEvents, type RelayReport } from '../../webhooks/relay';
import { retireExpiredSigningSecrets, type SecretRetirementReport } from '../../webhooks/secretRetirement';

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
