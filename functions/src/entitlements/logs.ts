import * as logger from 'firebase-functions/logger';

/** Named log lines of manual entitlement changes. Never the reason text, a key or a body. */
export const entitlementLogs = {
  mutated(requestId: string, projectId: string, env: string, action: 'grant' | 'revoke', customerId: string, entitlementKey: string, eventId: string, decision: string): void {
    logger.info('entitlement changed by the server api', { requestId, projectId, env, action, customerId, entitlementKey, eventId, decision });
  },
};
