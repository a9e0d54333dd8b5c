import { ApiError } from '../http/errors';
import { type CustomerRecord } from '../identity/model';
import { CUSTOMER_ID } from '../ids';
import type { DocumentSnapshot } from 'firebase-admin/firestore';

/** A `customerId` path value of a server endpoint: `400 invalid_customer` unless it is a customer id. */
export function requireCustomerIdParam(value: string | undefined): string {
  if (typeof value !== 'string' || !value.startsWith(CUSTOMER_ID.prefix)) {
    throw new ApiError('invalid_customer', `customerId must start with \`${CUSTOMER_ID.prefix}\`.`);
  }
  if (!CUSTOMER_ID.is(value)) throw new ApiError('invalid_customer', `No customer ${value} in this project and environment.`);
  return value;
}

/** The customer must exist in the key's project and environment (one being erased no longer does). */
export function requireKnownCustomer(snapshot: DocumentSnapshot, customerId: string): CustomerRecord {
  const record = snapshot.exists ? (snapshot.data() as CustomerRecord) : null;
  if (!record || record.status !== 'active') throw new ApiError('invalid_customer', `No customer ${customerId} in this project and environment.`);
  return record;
}
