import { appendAudit, newServerEventId } from '../audit/append';
import type { WebhookFanout } from '../webhooks/dispatch';
import { directoryOf, webhookDirectoryRef } from '../webhooks/directory';
import type { AuditEntry } from '../audit/model';
import { invalidParamValue } from '../errors/domain';
import { customerRef } from '../customers/refs';
import { randomToken } from '../ids/random';
import type { Transaction } from 'firebase-admin/firestore';
import type { EnvScope } from '../store/scope';
import { inCustomerTurn } from '../store/writeQueue';
import { catalogEntitlementRef, registerMissingKeys } from './catalog';
import { requireKnownCustomer } from './customerIds';
import { grantEnd, laterEnd, type GrantDuration } from './durations';
import type { EntitlementCause } from './changeModel';
import type { GrantRecord } from './model';
import { getAllInTx, projectionRef, readCustomerGrantsGuarded } from './projection';
import { isActiveAt } from './publicShape';
import { applyGrantChanges } from './writer';

/**
 * Manual grants and revokes from the server API. Each runs in one transaction that reads the
 * customer, the projection and the customer's grants, then writes the grant, the rewritten
 * projection and its change records (writer.ts) and one audit entry, so they can never disagree. Reading the projection in
 * every such transaction also serialises concurrent changes of one customer; on one instance
 * they take turns before the transaction (store/writeQueue.ts) instead of racing into it.
 */

/** Who asked: kept on the audit entry (the operator surface): a secret key (server API) or a signed-in operator (dashboard). */
export type Actor = { requestId: string; keyId: string } | { requestId: string; operator: string };

export interface GrantCommand {
  customerId: string;
  entitlementKey: string;
  duration: GrantDuration;
  reason: string;
}

export interface RevokeCommand {
  customerId: string;
  entitlementKey: string;
  reason: string;
}

export interface MutationOutcome {
  /** The manual grant as it is after the change. */
  grant: GrantRecord;
  audit: AuditEntry;
  /** Webhook events recorded with the change, to fan out once committed (webhooks/dispatch.ts). */
  webhookFanouts: WebhookFanout[];
}

export const MANUAL_PRODUCT_ID = 'manual';
export const newGrantId = (): string => `grt_${randomToken(24)}`;

/** A new grant on the `manual` rail (server grants and migration grants alike). */
export function newManualGrant(grantId: string, customerId: string, entitlementKey: string, productId: string, validUntil: number | null, now: number): GrantRecord {
  return {
    grantId,
    customerId,
    entitlementKey,
    source: { rail: 'manual', productId, subscriptionId: grantId },
    validUntil,
    revokedAt: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** Unrevoked, unexpired manual grants of one key (server grants and migration grants alike). */
export function activeManualGrants(grants: readonly GrantRecord[], key: string, now: number): GrantRecord[] {
  return grants.filter((g) => g.entitlementKey === key && g.source.rail === 'manual' && g.revokedAt === null && isActiveAt(g.validUntil, now));
}

/**
 * Grants `entitlementKey` by hand. When the key is already manually active the existing grant
 * is extended to the later end (lifetime wins); when that changes nothing the attempt is
 * still audited, as `no_op`.
 */
export async function grantManually(scope: EnvScope, command: GrantCommand, actor: Actor, now: number): Promise<MutationOutcome> {
  const { customerId, entitlementKey } = command;
  return inCustomerTurn(scope, [customerId], () => scope.runTransaction(async (tx) => {
    const [customer, projection, catalogEntry, webhookDirectory] = await getAllInTx(tx, scope, [
      customerRef(scope, customerId),
      projectionRef(scope, customerId),
      catalogEntitlementRef(scope, entitlementKey),
      webhookDirectoryRef(scope),
    ]);
    requireKnownCustomer(customer, customerId);
    const grants = await readCustomerGrantsGuarded(scope, customerId);
    const requestedEnd = grantEnd(command.duration, now);
    const current = latestEnding(activeManualGrants(grants, entitlementKey, now));

    let grant: GrantRecord;
    let decision: AuditEntry['decision'] = 'applied';
    if (current) {
      const end = laterEnd(current.validUntil, requestedEnd);
      if (end === current.validUntil) {
        grant = current;
        decision = 'no_op';
      } else {
        grant = { ...current, validUntil: end, updatedAt: now };
      }
    } else {
      grant = newManualGrant(newGrantId(), customerId, entitlementKey, MANUAL_PRODUCT_ID, requestedEnd, now);
    }
    registerMissingKeys(tx, scope, [catalogEntry], 'grant', now);
    const eventId = newServerEventId('grant');
    let webhookFanouts: WebhookFanout[] = [];
    if (decision === 'applied') {
      ({ webhookFanouts } = applyGrantChanges(tx, scope, { customers: [{ customerId, projection, grants }], changes: [grant], cause: operatorCause('grant', eventId), now, webhookDirectory: directoryOf(webhookDirectory) }));
    }
    const audit = appendOperatorAudit(tx, scope, actor, now, eventId, {
      action: 'grant',
      customerId,
      grantId: grant.grantId,
      decision,
      reason: command.reason,
      fromState: current ? 'active' : 'inactive',
      toState: 'active',
      details: {
        entitlementKey,
        duration: command.duration,
        grantId: grant.grantId,
        previousValidUntil: current ? current.validUntil : null,
        validUntil: grant.validUntil,
      },
    });
    return { grant, audit, webhookFanouts };
  }));
}

/**
 * Revokes a manual grant of `entitlementKey`. Only an active manual grant can be revoked; a
 * rail-derived entitlement has to be cancelled or refunded on its rail, and stays active when
 * a manual grant of the same key is revoked.
 */
export async function revokeManually(scope: EnvScope, command: RevokeCommand, actor: Actor, now: number): Promise<MutationOutcome> {
  const { customerId, entitlementKey } = command;
  return inCustomerTurn(scope, [customerId], () => scope.runTransaction(async (tx) => {
    const [customer, projection, webhookDirectory] = await getAllInTx(tx, scope, [customerRef(scope, customerId), projectionRef(scope, customerId), webhookDirectoryRef(scope)]);
    requireKnownCustomer(customer, customerId);
    const grants = await readCustomerGrantsGuarded(scope, customerId);
    const active = activeManualGrants(grants, entitlementKey, now);
    if (active.length === 0) throw notRevocable(grants, entitlementKey);

    const revoked = active.map((g) => ({ ...g, revokedAt: now, updatedAt: now }));
    const eventId = newServerEventId('revoke');
    const { webhookFanouts } = applyGrantChanges(tx, scope, { customers: [{ customerId, projection, grants }], changes: revoked, cause: operatorCause('revoke', eventId), now, webhookDirectory: directoryOf(webhookDirectory) });
    const grant = latestEnding(revoked)!;
    const audit = appendOperatorAudit(tx, scope, actor, now, eventId, {
      action: 'revoke',
      customerId,
      grantId: grant.grantId,
      decision: 'applied',
      reason: command.reason,
      fromState: 'active',
      toState: 'revoked',
      details: { entitlementKey, grantIds: revoked.map((g) => g.grantId) },
    });
    return { grant, audit, webhookFanouts };
  }));
}

/** Why there is nothing to revoke, as the `400 invalid_param_value` the client sees. */
function notRevocable(grants: readonly GrantRecord[], key: string) {
  const ofKey = grants.filter((g) => g.entitlementKey === key);
  const manual = ofKey.filter((g) => g.source.rail === 'manual');
  const rail = ofKey.find((g) => g.source.rail !== 'manual');
  if (manual.length === 0 && rail) {
    return invalidParamValue(
      `Entitlement \`${key}\` comes from the ${rail.source.rail} rail and cannot be revoked here; cancel or refund the purchase on the rail instead.`,
    );
  }
  if (manual.length === 0) return invalidParamValue(`Customer has no manual grant of \`${key}\` to revoke.`);
  // None is active: an unrevoked one has run out, otherwise all were revoked already.
  if (manual.some((g) => g.revokedAt === null)) return invalidParamValue(`The manual grant of \`${key}\` has already expired.`);
  return invalidParamValue(`The manual grant of \`${key}\` is already revoked.`);
}

/** The grant that ends last (lifetime first); ties to the smaller id. */
function latestEnding(grants: readonly GrantRecord[]): GrantRecord | undefined {
  return [...grants].sort((a, b) => {
    const endA = a.validUntil ?? Number.POSITIVE_INFINITY;
    const endB = b.validUntil ?? Number.POSITIVE_INFINITY;
    if (endA !== endB) return endB - endA;
    return a.grantId < b.grantId ? -1 : 1;
  })[0];
}

interface OperatorDecision {
  action: 'grant' | 'revoke';
  customerId: string;
  grantId: string;
  decision: AuditEntry['decision'];
  reason: string;
  fromState: string;
  toState: string;
  details: Record<string, unknown>;
}

const OPERATOR_EVENT_TYPE = { grant: 'entitlement.granted_manually', revoke: 'entitlement.revoked_manually' } as const;

const operatorCause = (action: OperatorDecision['action'], auditEventId: string): EntitlementCause => ({
  kind: 'operator',
  rail: 'manual',
  auditEventId,
  eventType: OPERATOR_EVENT_TYPE[action],
  ...(action === 'revoke' ? { takenBack: 'revoked' as const } : {}),
});

/** The audit entry of a grant or revoke made through the server API (the operator surface). */
function appendOperatorAudit(tx: Transaction, scope: EnvScope, actor: Actor, now: number, eventId: string, d: OperatorDecision): AuditEntry {
  return appendAudit(tx, scope, {
    eventId,
    rail: 'manual',
    eventType: OPERATOR_EVENT_TYPE[d.action],
    customerId: d.customerId,
    subscriptionId: d.grantId,
    decision: d.decision,
    reason: d.reason,
    fromState: d.fromState,
    toState: d.toState,
    signatureVerified: false,
    reconciledWithProvider: false,
    rawEventReceivedAt: now,
    processedAt: now,
    details: { ...('keyId' in actor ? { surface: 'server_api', keyId: actor.keyId } : { surface: 'dashboard', operator: actor.operator }), requestId: actor.requestId, ...d.details },
  });
}
