import { ERROR_CODES, type ErrorCode } from '../errors/codes';
import { isOperatorKind, type DomainError, type OperatorKind } from '../errors/domain';

type OperatorErrorCode = OperatorKind | 'aborted' | ErrorCode;

/** A failure of an operator action (CLI or seed), reported as JSON on stderr with a non-zero exit. */
export class OperatorError extends Error {
  constructor(
    readonly code: OperatorErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'OperatorError';
  }
}

/**
 * The CLI's one mapping of a domain refusal (registry.ts applies it to every command): an
 * operator kind stays as it is; an API request error (`400`: a value the operator gave) is the
 * CLI's `invalid_argument`, a usage error; any other API code keeps its name.
 */
export function operatorErrorOf(err: DomainError): OperatorError {
  const { code, message } = err;
  if (isOperatorKind(code)) return new OperatorError(code, message);
  return new OperatorError(ERROR_CODES[code].type === 'invalid_request_error' ? 'invalid_argument' : code, message);
}
