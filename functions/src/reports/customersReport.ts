import { FieldPath } from 'firebase-admin/firestore';
import { projectionRef } from '../entitlements/projection';
import { toPublicEntitlements } from '../entitlements/publicShape';
import type { ProjectionDoc } from '../entitlements/model';
import type { EnvScope } from '../store/scope';
import { storedRecord } from '../store/converters';
import { checkPageSize, decodeCursor, encodeCursor } from './cursor';
import { CUSTOMER_ID } from '../ids';
import type { CustomerRow, CustomersReport } from '../wire/reports';
import { type CustomerRecord, type IdentityKind } from '../customers/model';
import { toWireEnv } from '../store/env';
import { customersCollection } from '../customers/refs';

export interface CustomersPageInput {
  cursor: string | null;
  limit: number;
}

/** Identifiers listed: a Play purchase token is a credential to the purchase, not an identity to show. */
const LISTED: ReadonlySet<IdentityKind> = new Set(['developer', 'anonymous', 'stripe', 'apple_otx', 'apple_aat', 'google_account']);

/**
 * What a row shows of a customer and of its projection: the reads are masked to these fields, so
 * traits, erasure state or expiry bookkeeping are neither transferred nor decoded.
 */
const ROW_FIELDS = ['customerId', 'createdAt', 'email', 'identities'] as const satisfies readonly (keyof CustomerRecord)[];
type CustomerRowFields = Pick<CustomerRecord, (typeof ROW_FIELDS)[number]>;
const customerRowConverter = storedRecord<CustomerRowFields>();
const PROJECTION_ROW_FIELDS = ['entitlements'] as const satisfies readonly (keyof ProjectionDoc)[];

const isCustomerCursor = (v: unknown): v is { c: string } => typeof v === 'object' && v !== null && typeof (v as { c: unknown }).c === 'string' && CUSTOMER_ID.is((v as { c: string }).c);

/**
 * `GET /v1/reports/customers` (scope `reporting:identity`: row-level data), as a service: active
 * customers (merged and erased ones are not listed) in customer id order, a page at a time, each
 * with its identities and active entitlements. Reads the page (limit + 1 customer documents, one
 * query served by the single-field index on `status`) and its projections (one getAll), both
 * masked to the fields a row shows.
 */
export async function customersReport(scope: EnvScope, input: CustomersPageInput, now: number): Promise<CustomersReport> {
  const limit = checkPageSize(input.limit);
  let query = customersCollection(scope).where('status', '==', 'active').orderBy(FieldPath.documentId());
  if (input.cursor) query = query.startAfter(decodeCursor(input.cursor, isCustomerCursor).c);
  const page = await scope.query(query.select(...ROW_FIELDS).withConverter(customerRowConverter).limit(limit + 1));
  const customers = page.docs.slice(0, limit).map((doc) => doc.data());
  const projections = await scope.getAllMasked(
    customers.map((c) => projectionRef(scope, c.customerId)),
    PROJECTION_ROW_FIELDS,
  );
  const data = customers.map((customer, i): CustomerRow => ({
    object: 'customer',
    serviceCustomerId: customer.customerId,
    createdAt: customer.createdAt,
    email: customer.email ?? null,
    identities: (customer.identities ?? []).filter((identity) => LISTED.has(identity.kind)).map((identity) => ({ type: identity.kind, id: identity.id })),
    entitlements: toPublicEntitlements(projections[i].data() ?? null, now).filter((e) => e.isActive),
  }));
  const hasMore = page.size > limit;
  const last = customers[customers.length - 1];
  return { object: 'list', data, hasMore, nextCursor: hasMore && last ? encodeCursor({ c: last.customerId }) : null, env: toWireEnv(scope.env) };
}
