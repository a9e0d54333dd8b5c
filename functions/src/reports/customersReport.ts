import { FieldPath } from 'firebase-admin/firestore';
import { projectionRef } from '../entitlements/projection';
import { toPublicEntitlements } from '../entitlements/publicShape';
import type { EnvScope } from '../store/scope';
import { checkPageSize, decodeCursor, encodeCursor } from './cursor';
import { CUSTOMER_ID } from '../ids';
import type { CustomerRow, CustomersReport } from '../wire/reports';
import { type IdentityKind } from '../customers/model';
import { toWireEnv } from '../store/env';
import { customersCollection } from '../customers/refs';



export interface CustomersPageInput {
  cursor: string | null;
  limit: number;
}

/** Identifiers listed: a Play purchase token is a credential to the purchase, not an identity to show. */
const LISTED: ReadonlySet<IdentityKind> = new Set(['developer', 'anonymous', 'stripe', 'apple_otx', 'apple_aat', 'google_account']);

const isCustomerCursor = (v: unknown): v is { c: string } => typeof v === 'object' && v !== null && typeof (v as { c: unknown }).c === 'string' && CUSTOMER_ID.is((v as { c: string }).c);

/**
 * `GET /v1/reports/customers` (scope `reporting:identity`: row-level data), as a service: active
 * customers (merged and erased ones are not listed) in customer id order, a page at a time, each
 * with its identities and active entitlements. Reads the page (limit + 1 customer documents, one
 * query) and its projections (one getAll).
 */
export async function customersReport(scope: EnvScope, input: CustomersPageInput, now: number): Promise<CustomersReport> {
  const limit = checkPageSize(input.limit);
  let query = customersCollection(scope).where('status', '==', 'active').orderBy(FieldPath.documentId());
  if (input.cursor) query = query.startAfter(decodeCursor(input.cursor, isCustomerCursor).c);
  const page = await scope.query(query.limit(limit + 1));
  const customers = page.docs.slice(0, limit).map((doc) => doc.data());
  const projections = customers.length > 0 ? await scope.getAll(...customers.map((c) => projectionRef(scope, c.customerId))) : [];
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
