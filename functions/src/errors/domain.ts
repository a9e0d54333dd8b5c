/**
 * Refusals of domain code (a project, app, key, conflict or customer that is missing, in the
 * wrong state, or an argument that cannot be used). Domain code throws these and nothing
 * surface-specific: the HTTP layer maps them in `http/errors.ts` (`asApiError`), the CLI in
 * `cli/registry.ts` (to its `OperatorError`, same code), each to its own output.
 */
export const DOMAIN_ERROR_CODES = ['invalid_argument', 'not_found', 'conflict', 'archived'] as const;
export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

