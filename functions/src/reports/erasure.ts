import type { Query } from 'firebase-admin/firestore';
import type { EnvScope } from '../store/scope';
import { ERROR_GROUP_CUSTOMERS, ERROR_GROUPS } from './errorGroupModel';

/**
 * What the reports keep about one customer, for its erasure (identity/erasure.ts): its error-group
 * memberships (deleted: the groups' customer counts stay, they name no one) and the groups whose
 * latest sample came from its events (the sample is dropped: its message and stack are the
 * customer's telemetry). Counts and other rollups are aggregates and stay.
 */
export function reportErasureQueries(scope: EnvScope, customerId: string): { memberships: Query; samples: Query } {
  return {
    memberships: scope.collection(ERROR_GROUP_CUSTOMERS).where('customerId', '==', customerId),
    samples: scope.collection(ERROR_GROUPS).where('sampleCustomerId', '==', customerId),
  };
}
