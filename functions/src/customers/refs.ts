import type { EnvScope } from '../store/scope';
import { CUSTOMERS, customerConverter, IDENTITY_INDEX, identityDocId, identityEntryConverter, type IdentityKind } from './model';

/** Document references of the customer model, always inside the caller's partition. */
export const customerRef = (scope: EnvScope, customerId: string) => scope.doc(CUSTOMERS, customerId).withConverter(customerConverter);

export const identityRef = (scope: EnvScope, kind: IdentityKind, id: string) =>
  scope.doc(IDENTITY_INDEX, identityDocId(kind, id)).withConverter(identityEntryConverter);

/** The customers collection and the identity index, typed, for queries. */
export const customersCollection = (scope: EnvScope) => scope.collection(CUSTOMERS).withConverter(customerConverter);
export const identityIndexCollection = (scope: EnvScope) => scope.collection(IDENTITY_INDEX).withConverter(identityEntryConverter);
