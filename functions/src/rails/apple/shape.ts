import { describeJsonProblem, findJsonProblem } from '../../wire/jsonShape';
import { isUsableDocId } from '../../store/ids';

/**
 * Why a verified App Store payload cannot be used, or null when it can. Apple's library checks
 * the signature, the chain, the bundle and the environment, then hands back whatever JSON was
 * signed; the fields the service stores or uses as ids are checked here.
 */
type Fields = Record<string, unknown>;

const isAbsent = (value: unknown) => value === undefined || value === null;
const optionalOf = (kind: 'string' | 'number', value: unknown) => isAbsent(value) || (kind === 'number' ? typeof value === 'number' && Number.isFinite(value) : typeof value === 'string');

function problemOf(what: string, payload: Fields, checks: { ids?: string[]; strings?: string[]; numbers?: string[] }): string | null {
  const shapeProblem = findJsonProblem(payload);
  if (shapeProblem) return `malformed_payload: ${what} ${describeJsonProblem(shapeProblem)}`;
  for (const field of checks.ids ?? []) if (!isAbsent(payload[field]) && !isUsableDocId(payload[field])) return `malformed_payload: ${what} \`${field}\` is not a usable id`;
  for (const field of checks.strings ?? []) if (!optionalOf('string', payload[field])) return `malformed_payload: ${what} \`${field}\` is not a string`;
  for (const field of checks.numbers ?? []) if (!optionalOf('number', payload[field])) return `malformed_payload: ${what} \`${field}\` is not a number`;
  return null;
}

/** The notification itself (responseBodyV2DecodedPayload): a usable notificationUUID and a signedDate are required. */
export function appleNotificationProblem(payload: Fields): string | null {
  const problem = problemOf('notification', payload, { ids: ['notificationUUID'], strings: ['notificationType', 'subtype'], numbers: ['signedDate'] });
  if (problem) return problem;
  if (isAbsent(payload.notificationUUID)) return 'malformed_payload: notification lacks `notificationUUID`';
  if (isAbsent(payload.signedDate)) return 'malformed_payload: notification lacks `signedDate`';
  if (!isAbsent(payload.data) && (typeof payload.data !== 'object' || Array.isArray(payload.data))) return 'malformed_payload: notification `data` is not an object';
  const data = (payload.data ?? {}) as Fields;
  return problemOf('notification data', data, { strings: ['signedTransactionInfo', 'signedRenewalInfo'], numbers: ['status'] });
}

/** A signed transaction (notification or purchase sync): its ids name documents. */
export function appleTransactionProblem(transaction: Fields): string | null {
  return problemOf('transaction', transaction, {
    ids: ['transactionId', 'originalTransactionId'],
    strings: ['productId', 'appAccountToken', 'inAppOwnershipType'],
    numbers: ['purchaseDate', 'expiresDate', 'revocationDate', 'signedDate'],
  });
}

export function appleRenewalProblem(renewal: Fields): string | null {
  return problemOf('renewal info', renewal, { ids: ['originalTransactionId'], numbers: ['gracePeriodExpiresDate', 'autoRenewStatus'] });
}
