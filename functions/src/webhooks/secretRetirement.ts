import type { BackgroundDeps } from '../tasks/background';
import type { SecretWriter } from '../secrets/writer';
import { queryAcrossPartitions } from '../store/partitions';
import { webhookLogs } from './logs';
import { endpointConverter, WEBHOOK_ENDPOINTS, type WebhookEndpointRecord } from './model';

/**
 * Signing secrets are deleted from the secret store once nothing may sign with them: a previous
 * secret when its grace ends (the webhook worker, every minute, below), one displaced by a
 * second rotation at once (endpoints.ts). Only the current secret and a previous one still in
 * grace exist, whatever the number of rotations.
 */

/** Secrets retired per worker run (the rest wait for the next run, a minute later). */
const RETIREMENT_PAGE = 200;
const RETIRES_AT = 'previousSecretRetiresAt' satisfies keyof WebhookEndpointRecord;

/** Deletes one signing secret; a failure is logged (never a value) and reported, never thrown. */
export async function retireSigningSecret(secrets: SecretWriter, projectId: string, endpointId: string, ref: string): Promise<boolean> {
  try {
    await secrets.remove(projectId, ref);
    return true;
  } catch (err) {
    webhookLogs.signingSecretNotRetired(projectId, endpointId, ref, err instanceof Error ? err.message : String(err));
    return false;
  }
}

export interface SecretRetirementReport {
  /** Endpoints whose previous secret's grace had ended. */
  due: number;
  retired: number;
}

/**
 * Deletes every previous signing secret whose grace has ended, then notes it on its endpoint
 * (`previousSecretRetiresAt: null`, only if the endpoint still names that secret: a rotation
 * meanwhile has displaced and deleted it itself). The secret goes first: a failure leaves the
 * note, to be tried again. What signs a delivery is never touched (it follows `expiresAt`).
 */
export async function retireExpiredSigningSecrets(deps: Pick<BackgroundDeps, 'db' | 'clock'> & { secretWriter: SecretWriter }): Promise<SecretRetirementReport> {
  const now = deps.clock.now();
  const due = await queryAcrossPartitions(deps.db, WEBHOOK_ENDPOINTS, endpointConverter, (endpoints) => endpoints.where(RETIRES_AT, '<=', now).limit(RETIREMENT_PAGE));
  let retired = 0;
  for (const { scope, doc } of due.documents) {
    const record = doc.data();
    const previous = record.previousSecret;
    // A record is retired in the partition its path names, and only when its fields agree.
    if (record.projectId !== scope.projectId || record.env !== scope.env || record.endpointId !== doc.id) continue;
    const ref = doc.ref;
    if (previous && !(await retireSigningSecret(deps.secretWriter, record.projectId, record.endpointId, previous.ref))) continue;
    await scope.runTransaction(async (tx) => {
      const current = (await tx.get(ref)).data();
      if (current && current.previousSecret?.ref === previous?.ref && current.previousSecretRetiresAt != null) tx.update(ref, { [RETIRES_AT]: null });
    });
    retired += 1;
  }
  return { due: due.found, retired };
}
