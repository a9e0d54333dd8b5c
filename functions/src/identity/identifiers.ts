import { invalidParamValue } from '../errors/domain';
import { ANONYMOUS_ID, DEVELOPER_USER_ID } from '../ids';

/** The identifier rules of `POST /v1/identify` (and every other place a hint arrives); the ids themselves are ids/'s. */
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

