import { type DocumentReference, type DocumentSnapshot, FieldPath, type Query } from 'firebase-admin/firestore';
import { entitlementFacet, railFacet } from '../entitlements/listFacets';
import type { ProjectionDoc } from '../entitlements/model';
import { projectionRef, projectionsWithFacet } from '../entitlements/projection';
import { isActiveAt } from '../entitlements/publicShape';
import { DomainError } from '../errors/domain';
import type { CustomerRecord } from '../customers/model';
import { decodeCursor, encodeCursor } from '../reports/cursor';
import type { EnvScope } from '../store/scope';
import type { CustomerListQueryWire } from '../wire/dashboard';
import { customerRef, customersCollection, identityIndexCollection } from '../customers/refs';

/**
 * The dashboard's customer list: a page of customers, newest first, with filters, each answered
 * by ONE indexed query (firestore.indexes.json), never by reading customers and filtering them:
 * - default: `customers` by `createdAt` (desc), with `status` and a created range;
 * - `emailPrefix`: `customers` by `email` (a range on the prefix; case-sensitive), with `status`;
 * - `userIdPrefix`: the identity index's developer entries by id (a range on the prefix);
 * - `entitlement` and/or `rail`: projections whose `listFacets` contain it (entitlements/listFacets.ts).
 * Filters of different plans cannot be combined (a 400 says which): a query on one field's
 * range orders by that field, so it cannot also be the newest-first list of another.
 * Each row adds the customer's active entitlements (one getAll of the page's projections).
 */
export const DEFAULT_LIST_SIZE = 25;

export interface CustomerListQuery {
  status?: CustomerListQueryWire['status'];
  createdFrom?: number;
  createdTo?: number;
  emailPrefix?: string;
  userIdPrefix?: string;
  entitlement?: string;
  rail?: string;
  limit: number;
  cursor?: string;
}

export interface CustomerListRow {
  customerId: string;
  email: string | null;
  status: CustomerRecord['status'];
  createdAt: number;
  userIds: string[];
  rails: string[];
  /** Entitlement keys active now, with the rail of each. */
  entitlements: { key: string; rail: string; validUntil: number | null }[];
}

export interface CustomerListPage {
  data: CustomerListRow[];
  hasMore: boolean;
  nextCursor: string | null;
}

type Plan = 'created' | 'email' | 'userId' | 'facet';
interface ListCursor {
  p: Plan;
  v: (string | number)[];
}
const isListCursor = (v: unknown): v is ListCursor =>
  typeof v === 'object' && v !== null && ['created', 'email', 'userId', 'facet'].includes((v as ListCursor).p) && Array.isArray((v as ListCursor).v) && (v as ListCursor).v.every((x) => typeof x === 'string' || typeof x === 'number');

const RAIL_OF_KIND: Record<string, string> = { stripe: 'stripe', apple_otx: 'apple', apple_aat: 'apple', google_token: 'google', google_account: 'google' };
/** The end of a prefix range: every string starting with the prefix sorts below it. */
const prefixEnd = (prefix: string): string => `${prefix}\uf8ff`;

function planOf(q: CustomerListQuery): Plan {
  const refuse = (message: string): never => {
    throw new DomainError('invalid_argument', message);
  };
  const created = q.createdFrom !== undefined || q.createdTo !== undefined;
  if (q.userIdPrefix !== undefined) {
    if (created || q.status || q.emailPrefix !== undefined || q.entitlement || q.rail) refuse('A user id search takes no other filter.');
    return 'userId';
  }
  if (q.entitlement !== undefined || q.rail !== undefined) {
    if (created || q.status || q.emailPrefix !== undefined) refuse('The entitlement and rail filters cannot be combined with status, created range or email search.');
    return 'facet';
  }
  if (q.emailPrefix !== undefined) {
    if (created) refuse('An email search is ordered by email: it cannot be combined with a created range.');
    return 'email';
  }
  if (q.createdFrom !== undefined && q.createdTo !== undefined && q.createdFrom > q.createdTo) refuse('Invalid value for `createdFrom`: it must not be later than `createdTo`.');
  return 'created';
}

export async function listCustomers(scope: EnvScope, q: CustomerListQuery, now: number): Promise<CustomerListPage> {
  const plan = planOf(q);
  const after = q.cursor === undefined ? null : decodeCursor(q.cursor, isListCursor);
  if (after && after.p !== plan) throw new DomainError('invalid_argument', 'Invalid value for `cursor`: it belongs to a list with other filters.');

  const pageOf = async <T>(base: Query<T>) => {
    const snapshot = await scope.query((after ? base.startAfter(...after.v) : base).limit(q.limit + 1));
    return { docs: snapshot.docs.slice(0, q.limit), hasMore: snapshot.docs.length > q.limit };
  };
  let page: { hasMore: boolean; customerIds: string[]; customers: Map<string, DocumentSnapshot<CustomerRecord>>; projections: Map<string, DocumentSnapshot<ProjectionDoc>>; nextValues: (string | number)[] | null };
  if (plan === 'userId') {
    const { docs, hasMore } = await pageOf(identityIndexCollection(scope).where('kind', '==', 'developer').where('id', '>=', q.userIdPrefix!).where('id', '<', prefixEnd(q.userIdPrefix!)).orderBy('id'));
    const customerIds = unique(docs.map((d) => d.data().customerId));
    const last = docs.at(-1);
    page = { hasMore, customerIds, customers: await byRef(scope, customerIds.map((id) => customerRef(scope, id))), projections: await byRef(scope, customerIds.map((id) => projectionRef(scope, id))), nextValues: last ? [last.data().id] : null };
  } else if (plan === 'facet') {
    const facet = q.entitlement !== undefined ? entitlementFacet(q.entitlement, q.rail) : railFacet(q.rail!);
    const { docs, hasMore } = await pageOf(projectionsWithFacet(scope, facet));
    const customerIds = docs.map((d) => d.id);
    const last = docs.at(-1);
    page = { hasMore, customerIds, customers: await byRef(scope, customerIds.map((id) => customerRef(scope, id))), projections: new Map(docs.map((d) => [d.id, d])), nextValues: last ? [last.id] : null };
  } else {
    let query: Query<CustomerRecord> = customersCollection(scope);
    if (q.status) query = query.where('status', '==', q.status);
    if (plan === 'email') {
      query = query.where('email', '>=', q.emailPrefix!).where('email', '<', prefixEnd(q.emailPrefix!)).orderBy('email').orderBy(FieldPath.documentId());
    } else {
      if (q.createdFrom !== undefined) query = query.where('createdAt', '>=', q.createdFrom);
      if (q.createdTo !== undefined) query = query.where('createdAt', '<=', q.createdTo);
      query = query.orderBy('createdAt', 'desc').orderBy(FieldPath.documentId(), 'desc');
    }
    const { docs, hasMore } = await pageOf(query);
    const customerIds = docs.map((d) => d.id);
    const last = docs.at(-1);
    const nextValues = last ? (plan === 'email' ? [last.data().email ?? '', last.id] : [last.data().createdAt, last.id]) : null;
    page = { hasMore, customerIds, customers: new Map(docs.map((d) => [d.id, d])), projections: await byRef(scope, customerIds.map((id) => projectionRef(scope, id))), nextValues };
  }
  const data: CustomerListRow[] = [];
  for (const customerId of page.customerIds) {
    const customer = page.customers.get(customerId)?.data();
    if (!customer) continue; // a projection or index entry whose customer is gone
    data.push(rowOf(customer, page.projections.get(customerId)?.data(), now));
  }
  return { data, hasMore: page.hasMore, nextCursor: page.hasMore && page.nextValues ? encodeCursor({ p: plan, v: page.nextValues }) : null };
}

const unique = (ids: string[]): string[] => [...new Set(ids)];

async function byRef<T>(scope: EnvScope, refs: DocumentReference<T>[]): Promise<Map<string, DocumentSnapshot<T>>> {
  if (refs.length === 0) return new Map();
  const snapshots = await scope.getAll(...refs);
  return new Map(snapshots.map((s) => [s.id, s]));
}

function rowOf(customer: CustomerRecord, projection: ProjectionDoc | undefined, now: number): CustomerListRow {
  const entitlements = projection ? Object.values(projection.entitlements) : [];
  return {
    customerId: customer.customerId,
    email: customer.email,
    status: customer.status,
    createdAt: customer.createdAt,
    userIds: customer.identities.filter((i) => i.kind === 'developer').map((i) => i.id),
    rails: [...new Set(customer.identities.flatMap((i) => (RAIL_OF_KIND[i.kind] ? [RAIL_OF_KIND[i.kind]] : [])))].sort(),
    entitlements: entitlements
      .filter((e) => isActiveAt(e.validUntil, now))
      .map((e) => ({ key: e.key, rail: e.source.rail, validUntil: e.validUntil }))
      .sort((a, b) => a.key.localeCompare(b.key)),
  };
}
