import type { BackgroundDeps } from '../tasks/background';
import type { SecretWriter } from '../secrets/writer';
import { EnvScope } from '../store/scope';
import { webhookLogs } from './logs';
import { WEBHOOK_ENDPOINTS, type WebhookEndpointRecord } from './model';

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
  const due = await deps.db.collectionGroup(WEBHOOK_ENDPOINTS).where(RETIRES_AT, '<=', now).limit(RETIREMENT_PAGE).get();
  let retired = 0;
  for (const doc of due.docs) {
    const record = doc.data() as WebhookEndpointRecord;
    const previous = record.previousSecret;
    const scope = new EnvScope(deps.db, record.projectId, record.env);
    const ref = scope.doc(WEBHOOK_ENDPOINTS, record.endpointId);
    // A record is retired in the partition its path names, never one its fields claim.
    if (ref.path !== doc.ref.path) continue;
    if (previous && !(await retireSigningSecret(deps.secretWriter, record.projectId, record.endpointId, previous.ref))) continue;
    await scope.runTransaction(async (tx) => {
      const current = (await tx.get(ref)).data() as WebhookEndpointRecord | undefined;
      if (current && current.previousSecret?.ref === previous?.ref && current.previousSecretRetiresAt != null) tx.update(ref, { [RETIRES_AT]: null });
    });
    retired += 1;
  }
  return { due: due.size, retired };
}
