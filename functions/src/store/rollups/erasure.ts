import type { Query } from 'firebase-admin/firestore';
import type { EnvScope } from '../scope';
import { ERROR_GROUP_CUSTOMERS, ERROR_GROUPS } from './errorGroupModel';

/**
 * What the reports keep about one customer, for its erasure (identity/erasure.ts): its error-group
 * memberships (deleted: the groups' customer counts stay, they name no one) and the groups whose
 * latest sample came from its events (scrubbed, `ERASED_GROUP_FIELDS`: the sample, and the
 * group's message and name, which were that same event's and may name the person, e.g.
 * "Card declined for victim@…"). Counts and other rollups are aggregates and stay.
 */
export function reportErasureQueries(scope: EnvScope, customerId: string): { memberships: Query; samples: Query } {
  return {
    memberships: scope.collection(ERROR_GROUP_CUSTOMERS).where('customerId', '==', customerId),
    samples: scope.collection(ERROR_GROUPS).where('sampleCustomerId', '==', customerId),
  };
}

/** The group's name after a scrub: the fingerprint still groups its occurrences, the list shows this. */
export const ERASED_ERROR_NAME = '(erased)';

/** What a group keeps of an erased customer's latest error: nothing personal. */
export const ERASED_GROUP_FIELDS = { sample: null, sampleCustomerId: null, message: null, name: ERASED_ERROR_NAME } as const;
