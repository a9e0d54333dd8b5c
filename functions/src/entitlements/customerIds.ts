import { DomainError } from '../errors/domain';
import { type CustomerRecord } from '../customers/model';
import type { DocumentSnapshot } from 'firebase-admin/firestore';

/** The customer must exist in the key's project and environment (one being erased no longer does). */
export function requireKnownCustomer(snapshot: DocumentSnapshot<CustomerRecord>, customerId: string): CustomerRecord {
  const record = snapshot.data() ?? null;
  if (!record || record.status !== 'active') throw new DomainError('invalid_customer', `No customer ${customerId} in this project and environment.`);
  return record;
}
