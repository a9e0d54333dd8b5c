import * as logger from 'firebase-functions/logger';

/** Log lines of purchase sync. Never a signed transaction, a token or a body. */
export const purchaseLogs = {
  transactionRejected(requestId: string, projectId: string, reason: string): void {
    logger.warn('purchase sync: transaction failed verification', { requestId, projectId, reason });
  },
  transactionUnusable(requestId: string, projectId: string, reason: string): void {
    logger.warn('purchase sync: verified transaction unusable', { requestId, projectId, reason });
  },
  renewalInfoIgnored(requestId: string, projectId: string, reason: string): void {
    logger.info('purchase sync: renewal info ignored', { requestId, projectId, reason });
  },
  synced(requestId: string, projectId: string, decision: string, reason: string, duplicate: boolean): void {
    logger.info('purchase sync decided', { requestId, projectId, decision, reason, duplicate });
  },
};
