import type { Transaction } from 'firebase-admin/firestore';
import { appendAudit } from '../audit/append';
import { randomToken } from '../ids/random';
import type { EnvScope } from '../store/scope';
import type { CustomerRecord, IdentityIndexEntry } from '../customers/model';

/**
 * One developer user id is one person. A device (anonymous id) bound to a customer that carries
 * another developer user id never makes a second user id join that customer. When that user id
 * already has a customer, the two are a merge conflict (the spec's rule: developer-userId
 * customer canonical, `mergePending: true`, nothing moves). When it has none yet (a newcomer on a
 * shared device), identify creates the newcomer's own customer and moves the device's binding to
 * it, journalled; nothing is merged, no entitlement moves. A device bound to a customer without
 * any developer id (an anonymous customer) is claimed as before.
 */

/** Who moved a newcomer's device: the identify paths, and event resolution under identify's rules. */
export type MoveSurface = 'identify' | 'resolve' | 'bulk_alias' | 'events';

export interface DeviceMove {
  fromCustomerId: string;
  toCustomerId: string;
}

/** A customer of another person: it carries developer ids, none of them the caller's. */
export function ownedByAnotherUser(customer: CustomerRecord, developerIds: readonly string[]): boolean {
  const developers = customer.identities.filter((identity) => identity.kind === 'developer');
  return developers.length > 0 && !developers.some((identity) => developerIds.includes(identity.id));
}

export const DEVICE_MOVED_EVENT_TYPE = 'customer.device_moved';

/**
 * Records a move in the transaction that makes it: on the device's index entry (`movedFrom`, the
 * last move) and as one audit entry (the full history, kept like every audit entry). The audit
 * entry names the two customers only, never the device id, so it holds no identifier that
 * erasure would have to remove.
 */
export function journalDeviceMove(
  tx: Transaction,
  scope: EnvScope,
  move: DeviceMove,
  context: { surface: MoveSurface; assurance: IdentityIndexEntry['assurance']; now: number },
): string {
  const eventId = `srv_device_move_${randomToken(24)}`;
  appendAudit(tx, scope, {
    eventId,
    rail: 'manual',
    eventType: DEVICE_MOVED_EVENT_TYPE,
    customerId: move.toCustomerId,
    subscriptionId: null,
    decision: 'applied',
    reason: `A device bound to another developer user's customer (${move.fromCustomerId}) was identified for a new user id; its binding moved to the new user's customer ${move.toCustomerId}. Nothing was merged and no entitlement moved.`,
    fromState: `bound:${move.fromCustomerId}`,
    toState: `bound:${move.toCustomerId}`,
    signatureVerified: false,
    reconciledWithProvider: false,
    rawEventReceivedAt: context.now,
    processedAt: context.now,
    details: { fromCustomerId: move.fromCustomerId, toCustomerId: move.toCustomerId, identityKind: 'anonymous', assurance: context.assurance, surface: context.surface },
  });
  return eventId;
}
