import { DomainError } from '../errors/domain';
import { MAX_PAGE_SIZE } from '../wire/reports';

/**
 * Opaque page cursors: base64url of a small JSON value the service checks on the way back in.
 * A cursor that does not decode to what its list expects is `invalid_argument` (a 400).
 */
export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

export function decodeCursor<T>(cursor: string, check: (value: unknown) => value is T): T {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  if (!check(value)) throw new DomainError('invalid_argument', 'Invalid value for `cursor`: pass the `nextCursor` of the previous page unchanged.');
  return value;
}

export const DEFAULT_PAGE_SIZE = 20;

/** The page size of a validated query (wire/reports `pageQuerySchema`): its `limit`, else the default. */
export const pageSizeOf = (query: { limit?: string }): number => (query.limit === undefined ? DEFAULT_PAGE_SIZE : Number(query.limit));

/** A page size from a caller (the dashboard passes numbers): 1–MAX_PAGE_SIZE, else `invalid_argument`. */
export function checkPageSize(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) throw new DomainError('invalid_argument', `Invalid value for \`limit\`: an integer from 1 to ${MAX_PAGE_SIZE}.`);
  return limit;
}
