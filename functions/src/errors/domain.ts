import type { ErrorCode } from './codes';

/**
 * Refusals of domain and platform code. Code below the HTTP layer throws these and nothing
 * surface-specific; each surface maps them once, to its own output: `http/errors.ts`
 * (`asApiError`) to the API's envelope, `cli/registry.ts` to the CLI's `OperatorError`.
 *
 * A refusal's code is either one of the API's codes (`codes.ts`: the API answers with it as it
 * is) or an operator kind, for operator actions (CLI, dashboard) that the API's closed set has
 * no code for.
 */
export const OPERATOR_KINDS = ['invalid_argument', 'not_found', 'conflict', 'archived'] as const;
export type OperatorKind = (typeof OPERATOR_KINDS)[number];

type DomainErrorCode = ErrorCode | OperatorKind;

export function isOperatorKind(code: DomainErrorCode): code is OperatorKind {
  return (OPERATOR_KINDS as readonly string[]).includes(code);
}

/** When a `rate_limited` caller may retry, and the share of its events worth sending meanwhile. */
export interface RetryHint {
  retryAfterMs: number;
  sampleRate: number;
}

/** The SDK floor a `sdk_version_unsupported` refusal names (the 426 envelope's extra fields). */
interface VersionFloor {
  minVersion: string;
  surface: string;
}

/** What a code cannot be raised without, beyond its message. */
interface RequiredDetail {
  rate_limited: { retry: RetryHint };
  sdk_version_unsupported: { floor: VersionFloor };
}

type DomainErrorDetail<C extends DomainErrorCode> = {
  /** For logs only; never shown to the caller. */
  internal?: string;
} & (C extends keyof RequiredDetail ? RequiredDetail[C] : { retry?: never; floor?: never });

type DetailArgs<C extends DomainErrorCode> = C extends keyof RequiredDetail ? [detail: DomainErrorDetail<C>] : [detail?: DomainErrorDetail<C>];

export class DomainError<C extends DomainErrorCode = DomainErrorCode> extends Error {
  readonly internal?: string;
  readonly retry?: RetryHint;
  readonly floor?: VersionFloor;

  constructor(
    readonly code: C,
    message: string,
    ...[detail]: DetailArgs<C>
  ) {
    super(message);
    this.name = 'DomainError';
    const given: { internal?: string; retry?: RetryHint; floor?: VersionFloor } = detail ?? {};
    this.internal = given.internal;
    this.retry = given.retry;
    this.floor = given.floor;
  }
}


/** The most common refusal: a malformed or missing value (`400 invalid_param_value`). */
export const invalidParamValue = (message: string): DomainError<'invalid_param_value'> => new DomainError('invalid_param_value', message);
