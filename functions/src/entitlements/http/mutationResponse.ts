import type { Reply, RequestContext } from '../../http/route';
import type { MutationResponse } from '../../wire/entitlements';
import type { MutationOutcome } from '../manualGrants';
import { grantToPublic } from '../publicShape';
import { entitlementLogs } from '../logs';

/**
 * Names the audit entry a grant or revoke wrote (readable at `GET /v1/server/audit/{eventId}`).
 * @internal exported for the dashboard's browser test, which reads it
 */
export const AUDIT_EVENT_HEADER = 'X-Service-Audit-Event-Id';

/**
 * The `entitlement_mutation` response of grant and revoke. The body's shape is frozen by the
 * spec, so the audit entry's id travels in a response header.
 */
export function mutationResponse(ctx: RequestContext<unknown, unknown, unknown, unknown>, action: 'grant' | 'revoke', customerId: string, outcome: MutationOutcome, now: number): Reply<MutationResponse> {
  entitlementLogs.mutated(ctx.requestId, ctx.auth.projectId, ctx.auth.env, action, customerId, outcome.grant.entitlementKey, outcome.audit.eventId, outcome.audit.decision);
  return {
    body: {
      object: 'entitlement_mutation',
      action,
      serviceCustomerId: customerId,
      entitlement: grantToPublic(outcome.grant, now),
      env: ctx.auth.wireEnv,
    },
    headers: { [AUDIT_EVENT_HEADER]: outcome.audit.eventId },
  };
}
