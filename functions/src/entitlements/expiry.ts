import { appendAudit, newServerEventId } from '../audit/append';
import { directoryOf, webhookDirectoryRef } from '../webhooks/directory';
import type { WebhookFanout } from '../webhooks/dispatch';
import type { EnvScope } from '../store/scope';
import { inCustomerTurn } from '../store/writeQueue';
import type { EntitlementCause } from './changeModel';
import { getAllInTx, projectionRef } from './projection';
import { dueExpiries, recordExpiries } from './writer';

/**
 * `entitlement.expired`: a key whose `validUntil` passed without a renewal. Time passing writes
 * nothing by itself, so the expiry worker (entitlements/expirySweep.ts) records each end once
 * it is due: in one transaction per customer, an audit entry per key and, through the one
 * writer, the change record (next in the customer's sequence) and its webhook event. A renewal
 * that committed first moved the end (nothing is due any more), and one that commits after
 * conflicts on the projection and is recorded after the expiry (as a new grant).
 */
const EXPIRY_EVENT_TYPE = 'entitlement.expired';

/** Records the customer's due ends at `now`; returns how many, and the fan-outs of their webhook events (none when nothing was due). */
export async function recordDueExpiries(scope: EnvScope, customerId: string, now: number): Promise<{ recorded: number; fanouts: WebhookFanout[] }> {
  return inCustomerTurn(scope, [customerId], () =>
    scope.runTransaction(async (tx) => {
      const [projection, webhookDirectory] = await getAllInTx(tx, scope, [projectionRef(scope, customerId), webhookDirectoryRef(scope)]);
      const due = dueExpiries(projection.data() ?? null, now);
      if (due.length === 0) return { recorded: 0, fanouts: [] };
      const keys = new Map<string, EntitlementCause>();
      for (const entitlement of due) {
        const auditEventId = newServerEventId('expiry');
        appendAudit(tx, scope, {
          eventId: auditEventId,
          rail: entitlement.source.rail,
          eventType: EXPIRY_EVENT_TYPE,
          customerId,
          subscriptionId: entitlement.source.subscriptionId,
          decision: 'applied',
          reason: 'valid_until_passed',
          fromState: 'active',
          toState: 'expired',
          signatureVerified: false,
          reconciledWithProvider: false,
          rawEventReceivedAt: entitlement.validUntil!,
          processedAt: now,
          details: { surface: 'expiry_worker', entitlementKey: entitlement.key, validUntil: entitlement.validUntil },
        });
        keys.set(entitlement.key, { kind: 'expiry', rail: entitlement.source.rail, auditEventId, eventType: EXPIRY_EVENT_TYPE });
      }
      const applied = recordExpiries(tx, scope, { customerId, projection, keys, now, webhookDirectory: directoryOf(webhookDirectory) });
      return { recorded: applied.records.length, fanouts: applied.webhookFanouts };
    }),
  );
}
