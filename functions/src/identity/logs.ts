import * as logger from 'firebase-functions/logger';

/** Every log line of the identity capability. Never a token, an email, traits or a body. */
export const identityLogs = {
  identityTokenRejected(requestId: string, projectId: string, detail: string): void {
    logger.warn('identity token rejected', { requestId, projectId, detail });
  },
  identityProviderUnavailable(requestId: string, projectId: string, detail: string): void {
    logger.error('identity provider keys unavailable', { requestId, projectId, detail });
  },
  mergeConflictQueued(projectId: string, env: string, conflictId: string): void {
    logger.info('identity merge conflict queued for review', { projectId, env, conflictId });
  },
  deviceMoved(requestId: string, projectId: string, env: string, customerId: string): void {
    logger.info('device binding moved to another user\'s customer', { requestId, projectId, env, customerId });
  },
  verifiedIdentityRequired(requestId: string, projectId: string, env: string): void {
    logger.warn('identify refused: new device for a verified user without a token', { requestId, projectId, env });
  },
  velocityCapped(requestId: string, projectId: string, env: string): void {
    logger.warn('identify velocity cap reached', { requestId, projectId, env });
  },
  erasureQueued(projectId: string, env: string, customerId: string, taskId: string, result: string): void {
    logger.info('erasure queued', { projectId, env, customerId, taskId, result });
  },
  erasureCompleted(projectId: string, env: string, customerId: string, deleted: Record<string, number>): void {
    logger.info('erasure completed', { projectId, env, customerId, deleted });
  },
};
