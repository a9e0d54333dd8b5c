/**
 * A Pub/Sub push body: `{ message: { data (base64), messageId, publishTime, attributes }, subscription }`,
 * whose data is a Play real-time developer notification.
 */
export interface PushEnvelope {
  messageId: string;
  notification: DeveloperNotification;
}

export interface DeveloperNotification {
  version?: string;
  packageName?: string;
  eventTimeMillis?: string;
  subscriptionNotification?: { version?: string; notificationType?: number; purchaseToken?: string; subscriptionId?: string };
  oneTimeProductNotification?: { notificationType?: number; purchaseToken?: string; sku?: string };
  voidedPurchaseNotification?: { purchaseToken?: string; orderId?: string; productType?: number; refundType?: number };
  testNotification?: { version?: string };
}

/** Null when the body is not a push of a developer notification. */
export function parsePush(body: unknown): PushEnvelope | null {
  const message = (body as { message?: unknown } | null)?.message as { data?: unknown; messageId?: unknown; message_id?: unknown } | undefined;
  if (typeof message !== 'object' || message === null) return null;
  const messageId = typeof message.messageId === 'string' ? message.messageId : typeof message.message_id === 'string' ? message.message_id : null;
  if (!messageId || !/^[A-Za-z0-9_-]{1,128}$/.test(messageId) || typeof message.data !== 'string') return null;
  try {
    const notification = JSON.parse(Buffer.from(message.data, 'base64').toString('utf8')) as unknown;
    if (typeof notification !== 'object' || notification === null || Array.isArray(notification)) return null;
    return { messageId, notification: notification as DeveloperNotification };
  } catch {
    return null;
  }
}

/** Subscription notification types (Play Developer API reference), for the audit event type. */
export const SUBSCRIPTION_NOTIFICATION_TYPES: Record<number, string> = {
  1: 'SUBSCRIPTION_RECOVERED',
  2: 'SUBSCRIPTION_RENEWED',
  3: 'SUBSCRIPTION_CANCELED',
  4: 'SUBSCRIPTION_PURCHASED',
  5: 'SUBSCRIPTION_ON_HOLD',
  6: 'SUBSCRIPTION_IN_GRACE_PERIOD',
  7: 'SUBSCRIPTION_RESTARTED',
  8: 'SUBSCRIPTION_PRICE_CHANGE_CONFIRMED',
  9: 'SUBSCRIPTION_DEFERRED',
  10: 'SUBSCRIPTION_PAUSED',
  11: 'SUBSCRIPTION_PAUSE_SCHEDULE_CHANGED',
  12: 'SUBSCRIPTION_REVOKED',
  13: 'SUBSCRIPTION_EXPIRED',
  17: 'SUBSCRIPTION_ITEMS_CHANGED',
  18: 'SUBSCRIPTION_CANCELLATION_SCHEDULED',
  19: 'SUBSCRIPTION_PRICE_CHANGE_UPDATED',
  20: 'SUBSCRIPTION_PENDING_PURCHASE_CANCELED',
  22: 'SUBSCRIPTION_PRICE_STEP_UP_CONSENT_UPDATED',
};
