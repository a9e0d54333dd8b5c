import type { NewAuditEntry } from './append';

/**
 * Who made an operator change, kept on its audit entry (`details.surface`, `details.operator`):
 * the CLI (no identity beyond the machine's credentials) or a signed-in dashboard operator.
 */
export interface OperatorActor {
  surface: 'cli' | 'dashboard';
  /** The operator's email (dashboard); null for the CLI. */
  operator: string | null;
  /** The dashboard request that made the change. */
  requestId: string | null;
}

export const CLI_ACTOR: OperatorActor = { surface: 'cli', operator: null, requestId: null };

/** The audit `details` fields that name the actor. */
export function actorDetails(actor: OperatorActor): Record<string, unknown> {
  return { surface: actor.surface, ...(actor.operator ? { operator: actor.operator } : {}), ...(actor.requestId ? { requestId: actor.requestId } : {}) };
}

/**
 * The audit entry of an operator's change to configuration (a key, an app, an endpoint, rail
 * settings, an operator, a delivery replay): rail `manual`, applied, about no customer or
 * subscription, neither signed by nor reconciled with a provider, received and processed now,
 * with the actor in `details`.
 */
export function operatorChangeEntry(change: {
  eventId: string;
  eventType: string;
  reason: string;
  fromState: string | null;
  toState: string | null;
  now: number;
  actor: OperatorActor;
  details: Record<string, unknown>;
}): NewAuditEntry {
  return {
    eventId: change.eventId,
    rail: 'manual',
    eventType: change.eventType,
    customerId: null,
    subscriptionId: null,
    decision: 'applied',
    reason: change.reason,
    fromState: change.fromState,
    toState: change.toState,
    signatureVerified: false,
    reconciledWithProvider: false,
    rawEventReceivedAt: change.now,
    processedAt: change.now,
    details: { ...change.details, ...actorDetails(change.actor) },
  };
}
