import { invalidParamValue } from '../errors/domain';
import { ANONYMOUS_ID, APP_ACCOUNT_TOKEN, DEVELOPER_USER_ID } from '../ids';
import { EMAIL_MAX_LENGTH, EMAIL_PATTERN, TOKEN_MAX_LENGTH } from '../wire/identity';

/** The identifier rules of `POST /v1/identify` (and every other place a hint arrives); the ids themselves are ids/'s. */
const EMAIL = new RegExp(EMAIL_PATTERN);

export const isUserId = DEVELOPER_USER_ID.is;
export const isAnonymousId = ANONYMOUS_ID.is;

export function requireUserId(value: unknown, field = 'userId'): string {
  if (value === undefined || value === null || value === '') throw invalidParamValue(`Missing required field \`${field}\`.`);
  if (!isUserId(value)) throw invalidParamValue(`Invalid value for \`${field}\`: 1–256 characters of letters, digits and _ - . : @.`);
  return value;
}

export function requireAnonymousId(value: unknown, field = 'anonymousId'): string {
  if (value === undefined || value === null || value === '') throw invalidParamValue(`Missing required field \`${field}\`.`);
  if (!isAnonymousId(value)) throw invalidParamValue(`Invalid value for \`${field}\`: 1–128 characters of letters, digits, _ and -.`);
  return value;
}

export function optionalAppAccountToken(value: unknown, field = 'appAccountToken'): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !APP_ACCOUNT_TOKEN.is(value)) throw invalidParamValue(`Invalid value for \`${field}\`: must be a lowercase RFC 4122 UUID.`);
  return value;
}

export function optionalEmail(value: unknown, field = 'email'): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > EMAIL_MAX_LENGTH || !EMAIL.test(value)) {
    throw invalidParamValue(`Invalid value for \`${field}\`: must be an email address of at most ${EMAIL_MAX_LENGTH} characters.`);
  }
  return value;
}

export function optionalToken(value: unknown, field = 'idToken'): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value === '' || value.length > TOKEN_MAX_LENGTH) throw invalidParamValue(`Invalid value for \`${field}\`: must be a non-empty token string.`);
  return value;
}
