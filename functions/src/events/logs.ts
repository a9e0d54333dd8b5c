import * as logger from 'firebase-functions/logger';

/** Every log line of the events capability. Never an event body, property or identity hint. */
export const eventLogs = {
  batchThrottled(requestId: string, projectId: string, env: string, landed: number, dropped: number, errorPasses: number): void {
    logger.info('event batch throttled', { requestId, projectId, env, landed, dropped, errorPasses });
  },
  resolutionPayloadInvalid(detail: string): void {
    logger.error('identity resolution task dropped: invalid payload', { detail });
  },
  resolutionDone(projectId: string, env: string, events: number, attached: number, batchesAlreadyStored: number): void {
    logger.info('identity resolution done', { projectId, env, events, attached, batchesAlreadyStored });
  },
  batchUnreadable(projectId: string, env: string, batchDocId: string, detail: string): void {
    logger.error('identity resolution skipped an unreadable batch document', { projectId, env, batchDocId, detail });
  },
  linkRefused(projectId: string, env: string, reason: string): void {
    logger.warn('identity resolution refused an event link under identify\'s rules; the events went to their device', { projectId, env, reason });
  },
  resolutionUnresolved(projectId: string, env: string, events: number, reason: string): void {
    logger.warn('identity resolution left events without a customer', { projectId, env, events, reason });
  },
};
