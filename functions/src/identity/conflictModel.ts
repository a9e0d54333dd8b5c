import { createHash } from 'node:crypto';
import type { Env } from '../store/env';
import type { EnvScope } from '../store/scope';
import type { IdentityKind } from '../customers/model';
import { CONFLICT_ID } from '../ids';
import { storedRecord } from '../store/converters';

/**
 * A merge conflict queued for operator review, at `identityConflicts/{conflictId}` inside the
 * partition: identifiers of one identify (or one event) resolved to different customers. Nothing
 * is merged until an operator decides (`tessera conflicts resolve`).
 *
 * The id is derived from the partition and the set of customers, so repeated identify calls
 * for the same pair queue one conflict; it names its partition so an operator can act on it
 * with the id alone.
 */
export interface ConflictRecord {
  conflictId: string;
  projectId: string;
  env: Env;
  status: 'open' | 'merged' | 'kept_separate';
  /** The developer-user-id customer (or, without one, the first hint's): survives a merge. */
  canonicalCustomerId: string;
  otherCustomerIds: string[];
  /** The identifiers that revealed the conflict. */
  identities: { kind: IdentityKind; id: string; customerId: string }[];
  createdAt: number;
  resolvedAt: number | null;
}

export const IDENTITY_CONFLICTS = 'identityConflicts';
export const conflictConverter = storedRecord<ConflictRecord>();

/** The partition's conflicts, typed. */
export const conflictsCollection = (scope: EnvScope) => scope.collection(IDENTITY_CONFLICTS).withConverter(conflictConverter);

export function conflictId(scope: EnvScope, customerIds: readonly string[]): string {
  const digest = createHash('sha256').update([...customerIds].sort().join('|'), 'utf8').digest('hex').slice(0, 24);
  return `${CONFLICT_ID.prefix}${scope.env}_${digest}_${scope.projectId}`;
}

/** The partition a conflict id names, or null when it is not one of ours. */
export function parseConflictId(id: string): { env: Env; projectId: string } | null {
  const match = CONFLICT_ID.pattern.exec(id);
  return match ? { env: match[1] as Env, projectId: match[2] } : null;
}

export const conflictRef = (scope: EnvScope, id: string) => scope.doc(IDENTITY_CONFLICTS, id).withConverter(conflictConverter);
