import type { EnvScope } from '../store/scope';
import type { IdentityKind } from './model';
import { identityRef } from './refs';

/** The customer an identifier belongs to, by one direct document read (no query). */
export async function findCustomerIdByIdentity(scope: EnvScope, kind: IdentityKind, id: string): Promise<string | null> {
  const snapshot = await scope.get(identityRef(scope, kind, id));
  return snapshot.data()?.customerId ?? null;
}
