import { describeJsonProblem, findJsonProblem } from '../../wire/jsonShape';

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

/** The push, or why it cannot be used (with its message id when that is usable). */
export function readPush(body: unknown): { push: PushEnvelope } | { problem: string; messageId: string | null } {
  const message = (body as { message?: unknown } | null)?.message as { data?: unknown; messageId?: unknown; message_id?: unknown } | undefined;
  if (typeof message !== 'object' || message === null) return { problem: 'malformed_push: no `message` object', messageId: null };
  const claimedId = typeof message.messageId === 'string' ? message.messageId : typeof message.message_id === 'string' ? message.message_id : null;
  const messageId = claimedId && MESSAGE_ID.test(claimedId) ? claimedId : null;
  if (!messageId) return { problem: 'malformed_push: `message.messageId` is missing or not a usable id', messageId: null };
  if (typeof message.data !== 'string') return { problem: 'malformed_push: `message.data` is not a base64 string', messageId };
  let notification: unknown;
  try {
    notification = JSON.parse(Buffer.from(message.data, 'base64').toString('utf8'));
  } catch {
    return { problem: 'malformed_push: `message.data` is not base64 JSON', messageId };
  }
  if (typeof notification !== 'object' || notification === null || Array.isArray(notification)) return { problem: 'malformed_push: `message.data` is not a JSON object', messageId };
  const problem = notificationProblem(notification as Record<string, unknown>);
  return problem ? { problem, messageId } : { push: { messageId, notification: notification as DeveloperNotification } };
}

const MESSAGE_ID = /^[A-Za-z0-9_-]{1,128}$/;

const isAbsent = (value: unknown) => value === undefined || value === null;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The developer notification's fields the service reads, stores or sends to the Play API. */
function notificationProblem(notification: Record<string, unknown>): string | null {
  const shapeProblem = findJsonProblem(notification);
  if (shapeProblem) return `malformed_push: notification ${describeJsonProblem(shapeProblem)}`;
  if (!isAbsent(notification.packageName) && typeof notification.packageName !== 'string') return 'malformed_push: `packageName` is not a string';
  if (!isAbsent(notification.eventTimeMillis) && typeof notification.eventTimeMillis !== 'string' && typeof notification.eventTimeMillis !== 'number') {
    return 'malformed_push: `eventTimeMillis` is not a string or number';
  }
  for (const kind of ['subscriptionNotification', 'voidedPurchaseNotification', 'oneTimeProductNotification'] as const) {
    const inner = notification[kind];
    if (isAbsent(inner)) continue;
    if (!isObject(inner)) return `malformed_push: \`${kind}\` is not an object`;
    const token = inner.purchaseToken;
    if (!isAbsent(token) && (typeof token !== 'string' || token === '' || token.length > MAX_PURCHASE_TOKEN_LENGTH)) return `malformed_push: \`${kind}.purchaseToken\` is not a usable token`;
    for (const field of ['notificationType', 'productType']) {
      if (!isAbsent(inner[field]) && typeof inner[field] !== 'number') return `malformed_push: \`${kind}.${field}\` is not a number`;
    }
  }
  return null;
}

/** Play purchase tokens are a few hundred characters; anything far longer is not one. */
const MAX_PURCHASE_TOKEN_LENGTH = 4096;

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
