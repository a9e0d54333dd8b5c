import type { DocumentReference } from 'firebase-admin/firestore';
import type { EnvScope } from '../store/scope';
import { CUSTOMERS, IDENTITY_INDEX, identityDocId, type IdentityKind } from './model';

/** Document references of the customer model, always inside the caller's partition. */
export const customerRef = (scope: EnvScope, customerId: string): DocumentReference => scope.doc(CUSTOMERS, customerId);

export const identityRef = (scope: EnvScope, kind: IdentityKind, id: string): DocumentReference =>
  scope.doc(IDENTITY_INDEX, identityDocId(kind, id));
