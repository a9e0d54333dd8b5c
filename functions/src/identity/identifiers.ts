import { invalidParamValue } from '../errors/domain';

/** The identifier rules of `POST /v1/identify` (and every other place a hint arrives). */
export const USER_ID_PATTERN = /^[A-Za-z0-9_.:@-]{1,256}$/;
export const ANONYMOUS_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
/** Lowercase RFC 4122 UUID (versions 1–5, variant 10xx), as App Store appAccountTokens are. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const EMAIL_MAX_LENGTH = 320;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;

export const isUserId = (value: unknown): value is string => typeof value === 'string' && USER_ID_PATTERN.test(value);
export const isAnonymousId = (value: unknown): value is string => typeof value === 'string' && ANONYMOUS_ID_PATTERN.test(value);

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

/**
 * The same rules as Ajv subschemas, for the routes' body schemas (http/validation.ts words the
 * messages from the `x-` annotations exactly as the functions above do).
 */
export const userIdSchema = { type: 'string', pattern: USER_ID_PATTERN.source, 'x-missing-when-empty': true, 'x-invalid': '1–256 characters of letters, digits and _ - . : @' } as const;
export const anonymousIdSchema = { type: 'string', pattern: ANONYMOUS_ID_PATTERN.source, 'x-missing-when-empty': true, 'x-invalid': '1–128 characters of letters, digits, _ and -' } as const;
export const appAccountTokenSchema = { type: 'string', pattern: UUID_PATTERN.source, 'x-invalid': 'must be a lowercase RFC 4122 UUID' } as const;
export const emailSchema = { type: 'string', maxLength: EMAIL_MAX_LENGTH, pattern: EMAIL_PATTERN.source, 'x-invalid': `must be an email address of at most ${EMAIL_MAX_LENGTH} characters` } as const;
export const tokenSchema = { type: 'string', minLength: 1, maxLength: 16_384, 'x-invalid': 'must be a non-empty token string' } as const;
