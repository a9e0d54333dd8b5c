import type { KeyOutcome } from './grants';

/** What one row of a migration request came to (service.ts tallies them in row order). */
export type RowResult =
  | { kind: 'refused'; developerUserId: string | null; reason: string }
  | { kind: 'conflict'; developerUserId: string; railResolutions: Record<string, string> }
  | { kind: 'linked'; created: boolean; outcomes: KeyOutcome[] };
