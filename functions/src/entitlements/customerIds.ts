import { DomainError } from '../errors/domain';
import { CUSTOMER_ID_PREFIX, type CustomerRecord } from '../customers/model';
import type { DocumentSnapshot } from 'firebase-admin/firestore';

/** Customer ids as minted (`cdcust_` + base62), with room for longer suffixes; also safe as document ids. */
const CUSTOMER_ID = /^cdcust_[A-Za-z0-9_-]{1,128}$/;

/** A `customerId` path value of a server endpoint: `400 invalid_customer` unless it is a customer id. */
export function requireCustomerIdParam(value: string | undefined): string {
  if (typeof value !== 'string' || !value.startsWith(CUSTOMER_ID_PREFIX)) {
    throw new DomainError('invalid_customer', `customerId must start with \`${CUSTOMER_ID_PREFIX}\`.`);
  }
  if (!CUSTOMER_ID.test(value)) throw new DomainError('invalid_customer', `No customer ${value} in this project and environment.`);
  return value;
}

/** The customer must exist in the key's project and environment (one being erased no longer does). */
export function requireKnownCustomer(snapshot: DocumentSnapshot<CustomerRecord>, customerId: string): CustomerRecord {
  const record = snapshot.data() ?? null;
  if (!record || record.status !== 'active') throw new DomainError('invalid_customer', `No customer ${customerId} in this project and environment.`);
  return record;
}
