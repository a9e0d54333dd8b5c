import { createHash } from 'node:crypto';
import { appendAudit, auditRef } from '../../audit/append';
import type { CatalogRail } from '../../wire/vocabulary';
import { getAllInTx } from '../../entitlements/projection';
import { ApiError } from '../../http/errors';
import type { RequestContext } from '../../http/route';
import type { RailReply } from './ports';
import type { Env } from '../../store/env';
import { isUsableDocId, truncateText } from '../../store/ids';
import type { EnvScope } from '../../store/scope';
import { recorded } from './answer';
import type { RailDecision } from '../decision';
import { railLogs } from '../logs';
import { railEventType } from '../model';
import { verifiedScope, type WebhookTarget } from '../target';

/**
 * A notification that failed verification writes nothing: no audit entry, no de-duplication
 * claim, no customer, under no id it names (a forger could otherwise pre-claim the id of a real
 * event, or make the store fail on a string it cannot encode). It is logged with the request
 * id and answered 401 at once.
 */
export function unverified(ctx: RequestContext, rail: CatalogRail, projectId: string, reason: string, message: string): ApiError {
  railLogs.notificationUnverified(ctx.requestId, rail, projectId, truncateText(reason, 300));
  return new ApiError('invalid_api_key', message, { internal: reason });
}

/**
 * A notification whose signature verified but which the service cannot use (not an event
 * object, a field of the wrong type, an id that cannot name a document, a string that is not
 * well-formed Unicode). It is recorded as `rejected` and answered 2xx: the rail would send
 * the very same bytes again, so a retry could never succeed.
 *
 * (An unverified notification never reaches here: it writes nothing at all, see README.)
 */
export class UnusableNotification extends Error {
  constructor(
    readonly reason: string,
    /** The verified event id, when the payload has one (used only if it is a usable id). */
    readonly eventId: unknown = undefined,
  ) {
    super(`unusable notification: ${reason}`);
    this.name = 'UnusableNotification';
  }
}

/**
 * The audit id of a rejected, verified notification: its own event id when that can name a
 * document, else one derived from the bytes that were verified, so a re-delivery of the same
 * body finds the same entry (and is a duplicate) and a malformed id never becomes a path.
 */
export function rejectionEventId(rail: CatalogRail, eventId: unknown, verifiedBytes: Buffer | string): string {
  if (isUsableDocId(eventId)) return eventId;
  return `rejected_${rail}_${createHash('sha256').update(verifiedBytes).digest('hex').slice(0, 40)}`;
}

export interface VerifiedRejection {
  /** The partition the verification established (the secret, verifier or push config that verified it). */
  scope: EnvScope;
  rail: CatalogRail;
  eventId: string;
  eventType: string;
  reason: string;
  receivedAt: number;
  now: number;
}

/** Appends the `rejected` entry unless the event id is already recorded (then: a duplicate). */
export async function auditVerifiedRejection(rejection: VerifiedRejection): Promise<RailDecision> {
  const { scope, rail, eventId } = rejection;
  return scope.runTransaction(async (tx) => {
    const [existing] = await getAllInTx(tx, scope, [auditRef(scope, eventId)]);
    if (existing.exists) {
      const entry = existing.data()!;
      return { duplicate: true, decision: entry.decision, reason: entry.reason, customerId: entry.customerId, fromState: entry.fromState, toState: entry.toState, projection: null, webhookFanouts: [] };
    }
    const reason = truncateText(rejection.reason, 300);
    appendAudit(tx, scope, {
      eventId,
      rail,
      eventType: truncateText(rejection.eventType, 200),
      customerId: null,
      subscriptionId: null,
      decision: 'rejected',
      reason,
      fromState: null,
      toState: null,
      signatureVerified: true,
      reconciledWithProvider: false,
      rawEventReceivedAt: rejection.receivedAt,
      processedAt: rejection.now,
      details: {},
    });
    return { duplicate: false, decision: 'rejected', reason, customerId: null, fromState: null, toState: null, projection: null, webhookFanouts: [] };
  });
}

/** Records a verified but unusable notification and answers the rail so that it stops retrying. */
export async function answerUnusable(
  ctx: RequestContext,
  target: WebhookTarget,
  env: Env,
  rail: CatalogRail,
  unusable: UnusableNotification,
  verifiedBytes: Buffer | string,
  receivedAt: number,
): Promise<RailReply> {
  const eventId = rejectionEventId(rail, unusable.eventId, verifiedBytes);
  const outcome = await auditVerifiedRejection({
    scope: verifiedScope(target, env),
    rail,
    eventId,
    eventType: railEventType(rail, 'notification'),
    reason: unusable.reason,
    receivedAt,
    now: ctx.deps.clock.now(),
  });
  railLogs.notificationRejected(ctx.requestId, rail, target.projectId, env, eventId, outcome.reason, outcome.duplicate);
  return recorded(eventId, env, outcome);
}
