import { invalidParam } from '../http/errors';
import { ANONYMOUS_ID, APP_ACCOUNT_TOKEN, DEVELOPER_USER_ID } from '../ids';

/** The identifier rules of `POST /v1/identify` (and every other place a hint arrives); the ids themselves are ids/'s. */
export const EMAIL_MAX_LENGTH = 320;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;

export const isUserId = DEVELOPER_USER_ID.is;
export const isAnonymousId = ANONYMOUS_ID.is;

export function requireUserId(value: unknown, field = 'userId'): string {
  if (value === undefined || value === null || value === '') throw invalidParam(`Missing required field \`${field}\`.`);
  if (!isUserId(value)) throw invalidParam(`Invalid value for \`${field}\`: 1–256 characters of letters, digits and _ - . : @.`);
  return value;
}

export function requireAnonymousId(value: unknown, field = 'anonymousId'): string {
  if (value === undefined || value === null || value === '') throw invalidParam(`Missing required field \`${field}\`.`);
  if (!isAnonymousId(value)) throw invalidParam(`Invalid value for \`${field}\`: 1–128 characters of letters, digits, _ and -.`);
  return value;
}

export function optionalAppAccountToken(value: unknown, field = 'appAccountToken'): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !APP_ACCOUNT_TOKEN.is(value)) throw invalidParam(`Invalid value for \`${field}\`: must be a lowercase RFC 4122 UUID.`);
  return value;
}

export function optionalEmail(value: unknown, field = 'email'): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > EMAIL_MAX_LENGTH || !EMAIL_PATTERN.test(value)) {
    throw invalidParam(`Invalid value for \`${field}\`: must be an email address of at most ${EMAIL_MAX_LENGTH} characters.`);
  }
  return value;
}

export function optionalToken(value: unknown, field = 'idToken'): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value === '' || value.length > 16_384) throw invalidParam(`Invalid value for \`${field}\`: must be a non-empty token string.`);
  return value;
}

/**
 * The same rules as Ajv subschemas, for the routes' body schemas (http/validation.ts words the
 * messages from the `x-` annotations exactly as the functions above do).
 */
export const userIdSchema = { type: 'string', pattern: DEVELOPER_USER_ID.schema.pattern, 'x-missing-when-empty': true, 'x-invalid': '1–256 characters of letters, digits and _ - . : @' } as const;
export const anonymousIdSchema = { type: 'string', pattern: ANONYMOUS_ID.schema.pattern, 'x-missing-when-empty': true, 'x-invalid': '1–128 characters of letters, digits, _ and -' } as const;
export const appAccountTokenSchema = { type: 'string', pattern: APP_ACCOUNT_TOKEN.schema.pattern, 'x-invalid': 'must be a lowercase RFC 4122 UUID' } as const;
export const emailSchema = { type: 'string', maxLength: EMAIL_MAX_LENGTH, pattern: EMAIL_PATTERN.source, 'x-invalid': `must be an email address of at most ${EMAIL_MAX_LENGTH} characters` } as const;
export const tokenSchema = { type: 'string', minLength: 1, maxLength: 16_384, 'x-invalid': 'must be a non-empty token string' } as const;
