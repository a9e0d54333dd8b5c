/** A failure of an operator action (CLI or seed), reported as JSON on stderr with a non-zero exit. */
export class OperatorError extends Error {
  constructor(
    readonly code: 'not_found' | 'invalid_argument' | 'conflict' | 'archived' | 'aborted',
    message: string,
  ) {
    super(message);
    this.name = 'OperatorError';
  }
}
