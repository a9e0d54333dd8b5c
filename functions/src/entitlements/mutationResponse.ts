import type { RequestContext } from '../http/route';
import type { MutationOutcome } from './manualGrants';
import { grantToPublic } from './publicShape';
import { entitlementLogs } from './logs';

/**
 * The `entitlement_mutation` response of grant and revoke. `auditEventId` names the audit entry
 * the change wrote (readable at `GET /v1/server/audit/{eventId}`).
 */
export function mutationResponse(ctx: RequestContext<unknown, unknown>, action: 'grant' | 'revoke', customerId: string, outcome: MutationOutcome, now: number) {
  entitlementLogs.mutated(ctx.requestId, ctx.auth.projectId, ctx.auth.env, action, customerId, outcome.grant.entitlementKey, outcome.audit.eventId, outcome.audit.decision);
  return {
    object: 'entitlement_mutation' as const,
    action,
    serviceCustomerId: customerId,
    entitlement: grantToPublic(outcome.grant, now),
    env: ctx.auth.wireEnv,
    auditEventId: outcome.audit.eventId,
  };
}
