import { appendAudit } from '../audit/append';
import { actorDetails, type OperatorActor } from '../audit/operatorActor';
import { DomainError } from '../errors/domain';
import type { EnvScope } from '../store/scope';
import type { TaskQueue } from '../tasks/queue';
import { inCustomerTurn } from '../store/writeQueue';
import { erasureRequestedEventId, erasureTaskId, PENDING_ERASURES, type ErasurePayload, type PendingErasure } from './erasureModel';
import { requireVerified } from './identifyService';
import { identityLogs } from './logs';
import type { IdentityCaller, IdentityPorts } from './ports';
import { customerRef, identityRef } from '../customers/refs';

export interface ForgetInput {
  customerId: string | null;
  userId: string | null;
  anonymousId: string | null;
  idToken: string | null;
}

export type ErasureAuthority = 'secret_key' | 'verified_token' | 'anonymous_id' | 'operator';

export interface ForgetOutcome {
  customerId: string | null;
  queuedAt: number;
}

/**
 * `POST /v1/identity/forget`. Authority (spec rules 1–2): an identified erasure (customerId or
 * userId) needs a secret key or a verified token whose subject is `userId`, and a token only
 * authorises its own user's customer; an anonymous-only erasure needs no proof. The target is
 * the first hint that resolves, in the order customerId, userId, anonymousId.
 */
export async function forget(ports: IdentityPorts & { tasks: TaskQueue }, caller: IdentityCaller, input: ForgetInput): Promise<ForgetOutcome> {
  const { scope, clock, idTokens } = ports;
  const now = clock.now();
  const identified = input.customerId !== null || input.userId !== null;
  let authority: ErasureAuthority = caller.keyKind === 'secret' ? 'secret_key' : 'anonymous_id';
  if (identified && caller.keyKind !== 'secret') {
    if (!input.userId || !input.idToken) throw new DomainError('identity_token_invalid', 'Erasing an identified customer needs a secret key or a verified idToken for userId.');
    requireVerified(caller.requestId, scope.projectId, await idTokens.verify(scope.projectId, input.idToken, input.userId, now));
    authority = 'verified_token';
  }

  const refs = [
    input.customerId ? customerRef(scope, input.customerId) : null,
    input.userId ? identityRef(scope, 'developer', input.userId) : null,
    input.anonymousId ? identityRef(scope, 'anonymous', input.anonymousId) : null,
  ];
  const snapshots = await scope.getAll(...refs.filter((r) => r !== null));
  const read = refs.map((ref) => (ref ? snapshots.shift()! : null));
  const byCustomerId = read[0]?.exists ? input.customerId : null;
  const byUserId = read[1]?.data()?.customerId ?? null;
  const byAnonymousId = read[2]?.data()?.customerId ?? null;

  if (authority === 'verified_token') {
    // The token proves who the caller is; it authorises that user's customer and no other.
    if (byCustomerId && byCustomerId !== byUserId) throw new DomainError('identity_token_invalid', 'The idToken does not authorise erasing that customer.');
    return requestErasure(ports.tasks, caller, scope, byUserId, authority, now);
  }
  return requestErasure(ports.tasks, caller, scope, byCustomerId ?? byUserId ?? byAnonymousId, authority, now);
}

/**
 * An operator's erasure of one customer (the dashboard): authority `operator`, the operator
 * named on the audit entry; queued exactly like an API request's.
 */
export async function eraseAsOperator(tasks: TaskQueue, scope: EnvScope, customerId: string, actor: OperatorActor, now: number): Promise<ForgetOutcome> {
  return requestErasure(tasks, { requestId: actor.requestId ?? '', keyKind: 'secret' }, scope, customerId, 'operator', now, actor);
}

async function requestErasure(tasks: TaskQueue, caller: IdentityCaller, scope: EnvScope, customerId: string | null, authority: ErasureAuthority, now: number, actor?: OperatorActor): Promise<ForgetOutcome> {
  if (!customerId) return { customerId: null, queuedAt: now };
  const decision = await markForErasure(scope, customerId, authority, now, caller.requestId, actor);
  if (!decision) return { customerId: null, queuedAt: now };
  if (!decision.erased) {
    const payload: ErasurePayload = { projectId: scope.projectId, env: scope.env, customerId: decision.customerId };
    const taskId = erasureTaskId(payload);
    try {
      const result = await tasks.enqueue('erasure', { ...payload }, { id: taskId });
      identityLogs.erasureQueued(scope.projectId, scope.env, decision.customerId, taskId, result);
    } catch (err) {
      // The decision is durable and listed in pendingErasures: the retention worker finishes it.
      identityLogs.erasureQueued(scope.projectId, scope.env, decision.customerId, taskId, `enqueue failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return { customerId: decision.customerId, queuedAt: decision.requestedAt };
}

/**
 * Marks the customer, writes the audit entry and lists the pending erasure, in one transaction.
 * A repeat finds the customer already marked and changes nothing: one audited decision per
 * customer. A customer merged into another is erased through its canonical record.
 */
export async function markForErasure(
  scope: EnvScope,
  customerId: string,
  authority: ErasureAuthority,
  now: number,
  requestId: string | null,
  actor?: OperatorActor,
): Promise<{ customerId: string; requestedAt: number; erased: boolean } | null> {
  // In turn with the customer's other writers on this instance (store/writeQueue.ts).
  return inCustomerTurn(scope, [customerId], () => scope.runTransaction(async (tx) => {
    let id = customerId;
    let snapshot = await tx.get(customerRef(scope, id));
    for (let hops = 0; snapshot.data()?.status === 'merged' && hops < 3; hops += 1) {
      id = snapshot.data()!.mergedInto!;
      snapshot = await tx.get(customerRef(scope, id));
    }
    if (!snapshot.exists) return null;
    const customer = snapshot.data()!;
    if (customer.erasure && customer.status !== 'active') {
      return { customerId: id, requestedAt: customer.erasure.requestedAt, erased: customer.status === 'erased' };
    }
    const payload: ErasurePayload = { projectId: scope.projectId, env: scope.env, customerId: id };
    const taskId = erasureTaskId(payload);
    const auditEventId = erasureRequestedEventId(id);
    tx.update(customerRef(scope, id), {
      status: 'erasure_pending',
      erasure: { requestedAt: now, auditEventId, taskId, completedAt: null },
      updatedAt: now,
    });
    const pending: PendingErasure = { ...payload, taskId, requestedAt: now };
    tx.set(scope.ledgerRef(PENDING_ERASURES, taskId), pending);
    appendAudit(tx, scope, {
      eventId: auditEventId,
      rail: 'manual',
      eventType: 'customer.erasure_requested',
      customerId: id,
      subscriptionId: null,
      decision: 'applied',
      reason: 'Right-to-be-forgotten request accepted: personal data queued for deletion; payment-rail records are retained where financial-record law requires.',
      fromState: 'active',
      toState: 'erasure_pending',
      signatureVerified: authority === 'verified_token',
      reconciledWithProvider: false,
      rawEventReceivedAt: now,
      processedAt: now,
      details: { authority, ...(requestId ? { requestId } : {}), ...(actor ? actorDetails(actor) : {}) },
    });
    return { customerId: id, requestedAt: now, erased: false };
  }));
}
