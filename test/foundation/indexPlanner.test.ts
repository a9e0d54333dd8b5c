/**
 * The index planner (test/support/indexPlanner.ts): each documented rule with a query it serves
 * and one it refuses, on small hand-written configs, then the service's own queries against the
 * deployed firestore.indexes.json. The emulator needs no index, so this model is what stands
 * between a missing index and FAILED_PRECONDITION in production.
 */
import { Filter, Firestore, FieldPath } from 'firebase-admin/firestore';
import { readIndexConfig, type IndexConfig } from '../support/indexEntries';
import { planQuery, type Direction, type FilterOp, type PlannedQuery } from '../support/indexPlanner';
import { plannedQueries, requestQueries } from '../support/queryShapes';

type Override = IndexConfig['fieldOverrides'][number];
type Composite = IndexConfig['indexes'][number];

const config = (overrides: Override[] = [], indexes: Composite[] = []): IndexConfig => ({ indexes, fieldOverrides: overrides });
const exempt = (collectionGroup: string, fieldPath: string, indexes: Override['indexes'] = []): Override => ({ collectionGroup, fieldPath, indexes });
const composite = (collectionGroup: string, fields: [string, Direction | 'CONTAINS'][], queryScope = 'COLLECTION'): Composite => ({
  collectionGroup,
  queryScope,
  fields: fields.map(([fieldPath, mode]) => (mode === 'CONTAINS' ? { fieldPath, arrayConfig: 'CONTAINS' } : { fieldPath, order: mode })),
});

const query = (filters: [string, FilterOp][], orderBy: [string, Direction][] = [], extra: Partial<PlannedQuery> = {}): PlannedQuery => ({
  collectionGroup: 'orders',
  collectionGroupQuery: false,
  filters: filters.map(([field, op]) => ({ field, op })),
  orderBy: orderBy.map(([field, direction]) => ({ field, direction })),
  ...extra,
});

const served = (q: PlannedQuery, c: IndexConfig) => planQuery(q, c).served;
const reason = (q: PlannedQuery, c: IndexConfig): string => {
  const verdict = planQuery(q, c);
  if (verdict.served) throw new Error(`expected a refusal, got served by ${verdict.by}`);
  return verdict.reason;
};

describe('automatic single-field indexes and exemptions', () => {
  it('serves a field with no override from its automatic COLLECTION-scope index, and refuses it once exempted', () => {
    expect(served(query([['customerId', 'EQUAL']]), config())).toBe(true);
    expect(reason(query([['customerId', 'EQUAL']]), config([exempt('orders', 'customerId')]))).toMatch(/orders\.customerId has no ASCENDING COLLECTION single-field index \(fieldOverrides orders\.customerId: none\)/);
  });

  it('applies an exemption to its own collection group only', () => {
    expect(served(query([['customerId', 'EQUAL']]), config([exempt('audit', 'customerId')]))).toBe(true);
  });

  it('lets sub-fields inherit a map field exemption, unless their own override restores an index', () => {
    const hints = exempt('orders', 'hints');
    expect(reason(query([['hints.userId', 'IN']]), config([hints]))).toMatch(/fieldOverrides orders\.hints \(inherited by hints\.userId\)/);
    expect(served(query([['hints.userId', 'IN']]), config([hints, exempt('orders', 'hints.userId', [{ order: 'ASCENDING', queryScope: 'COLLECTION' }])]))).toBe(true);
  });

  it('applies a `*` override to every field of its collection group', () => {
    expect(served(query([['status', 'EQUAL']]), config([exempt('orders', '*')]))).toBe(false);
    expect(served(query([['status', 'EQUAL']]), config([exempt('orders', '*'), exempt('orders', 'status', [{ order: 'ASCENDING', queryScope: 'COLLECTION' }])]))).toBe(true);
  });

  it('gives a collection-group query no single-field index unless an override adds the COLLECTION_GROUP one', () => {
    const group = query([['email', 'EQUAL']], [], { collectionGroupQuery: true });
    expect(reason(group, config())).toMatch(/COLLECTION_GROUP single-field index \(automatic indexing: none\)/);
    expect(served(group, config([exempt('orders', 'email', [{ order: 'ASCENDING', queryScope: 'COLLECTION_GROUP' }])]))).toBe(true);
    // ...and an override that only adds the group index takes the collection's away.
    expect(served(query([['email', 'EQUAL']]), config([exempt('orders', 'email', [{ order: 'ASCENDING', queryScope: 'COLLECTION_GROUP' }])]))).toBe(false);
  });
});

describe('one field: its single-field index', () => {
  const ascendingOnly = config([exempt('orders', 'at', [{ order: 'ASCENDING', queryScope: 'COLLECTION' }])]);

  it('serves a range or an inequality from the index in the ordering direction', () => {
    expect(served(query([['at', 'LESS_THAN_OR_EQUAL']], [['at', 'ASCENDING']]), ascendingOnly)).toBe(true);
    expect(served(query([['at', 'NOT_EQUAL']]), ascendingOnly)).toBe(true);
    expect(served(query([['at', 'NOT_IN']]), ascendingOnly)).toBe(true);
    expect(reason(query([['at', 'GREATER_THAN']], [['at', 'DESCENDING']]), ascendingOnly)).toMatch(/orders\.at has no DESCENDING COLLECTION single-field index/);
  });

  it('serves an orderBy alone from the index in its direction', () => {
    expect(served(query([], [['at', 'ASCENDING']]), ascendingOnly)).toBe(true);
    expect(served(query([], [['at', 'DESCENDING']]), ascendingOnly)).toBe(false);
  });

  it('serves equality and `in` from the index in the document-id direction, array-contains only from the array-contains index', () => {
    const descendingOnly = config([exempt('orders', 'tags', [{ order: 'DESCENDING', queryScope: 'COLLECTION' }])]);
    expect(served(query([['tags', 'IN']], [['__name__', 'DESCENDING']]), descendingOnly)).toBe(true);
    expect(reason(query([['tags', 'IN']]), descendingOnly)).toMatch(/orders\.tags has no ASCENDING COLLECTION single-field index \(fieldOverrides orders\.tags: DESCENDING\)/);
    expect(served(query([['at', 'EQUAL']]), ascendingOnly)).toBe(true);
    expect(reason(query([['tags', 'ARRAY_CONTAINS']]), descendingOnly)).toMatch(/orders\.tags has no CONTAINS COLLECTION single-field index/);
    expect(reason(query([['tags', 'ARRAY_CONTAINS_ANY']]), descendingOnly)).toMatch(/no CONTAINS/);
    expect(served(query([['tags', 'ARRAY_CONTAINS']]), config([exempt('orders', 'tags', [{ arrayConfig: 'CONTAINS', queryScope: 'COLLECTION' }])]))).toBe(true);
  });

  it('refuses a document-id order against the field direction without a composite listing __name__', () => {
    const q = query([], [['at', 'DESCENDING'], ['__name__', 'ASCENDING']]);
    expect(reason(q, config())).toMatch(/needs a composite index with __name__ listed/);
    expect(served(q, config([], [composite('orders', [['at', 'DESCENDING'], ['__name__', 'ASCENDING']])]))).toBe(true);
  });
});

describe('equality filters on several fields: merged single-field indexes', () => {
  it('serves several equalities (and an array-contains) with or without a document-id order', () => {
    expect(served(query([['status', 'EQUAL'], ['rail', 'IN'], ['tags', 'ARRAY_CONTAINS']]), config())).toBe(true);
    expect(served(query([['status', 'EQUAL'], ['rail', 'EQUAL']], [['__name__', 'DESCENDING']]), config())).toBe(true);
  });

  it('refuses the merge when one of the fields is exempted, naming that field', () => {
    const both = query([['status', 'EQUAL'], ['rail', 'EQUAL']]);
    expect(reason(both, config([exempt('orders', 'rail')]))).toMatch(/orders\.rail has no ASCENDING .* \(or a composite index \[status ==, rail ==\]\)$/);
    expect(served(both, config([exempt('orders', 'rail')], [composite('orders', [['rail', 'ASCENDING'], ['status', 'ASCENDING']])]))).toBe(true);
  });

  it('does not merge single-field indexes under an inequality or an order on another field', () => {
    expect(reason(query([['status', 'EQUAL'], ['at', 'GREATER_THAN']]), config())).toMatch(/needs a composite index \[status ==, at asc\]/);
    expect(reason(query([['status', 'EQUAL']], [['at', 'DESCENDING']]), config())).toMatch(/needs a composite index \[status ==, at desc\]/);
  });

  it('merges composite indexes that share the ordering (the documented index-merging case)', () => {
    const q = query([['city', 'EQUAL'], ['category', 'EQUAL']], [['rating', 'DESCENDING']]);
    const cityRating = composite('orders', [['city', 'ASCENDING'], ['rating', 'DESCENDING']]);
    const categoryRating = composite('orders', [['category', 'ASCENDING'], ['rating', 'DESCENDING']]);
    expect(served(q, config([], [cityRating, categoryRating]))).toBe(true);
    expect(reason(q, config([], [cityRating]))).toMatch(/no composite index orders \[category ==, rating desc\] to merge/);
  });
});

describe('everything else: a composite index of the same scope', () => {
  it('serves equality then range from [equality fields in any order, range field]', () => {
    const q = query([['rail', 'EQUAL'], ['status', 'EQUAL'], ['at', 'GREATER_THAN']]);
    expect(served(q, config([], [composite('orders', [['status', 'ASCENDING'], ['rail', 'DESCENDING'], ['at', 'ASCENDING']])]))).toBe(true);
    expect(served(q, config([], [composite('orders', [['rail', 'ASCENDING'], ['status', 'ASCENDING'], ['at', 'ASCENDING']])]))).toBe(true);
    // The range field cannot come first, and a missing equality field is a different index.
    expect(served(q, config([], [composite('orders', [['at', 'ASCENDING'], ['rail', 'ASCENDING'], ['status', 'ASCENDING']])]))).toBe(false);
    expect(served(q, config([], [composite('orders', [['status', 'ASCENDING'], ['at', 'ASCENDING']])]))).toBe(false);
  });

  it('matches the ordering field by direction, including the implicit direction of an inequality', () => {
    const newestFirst = query([['customerId', 'EQUAL']], [['at', 'DESCENDING'], ['__name__', 'DESCENDING']]);
    expect(served(newestFirst, config([], [composite('orders', [['customerId', 'ASCENDING'], ['at', 'DESCENDING']])]))).toBe(true);
    expect(served(newestFirst, config([], [composite('orders', [['customerId', 'ASCENDING'], ['at', 'ASCENDING']])]))).toBe(false);
    // Unordered inequality fields follow the last explicit order's direction, in field-name order.
    const twoRanges = query([['b', 'LESS_THAN'], ['a', 'GREATER_THAN']], [['c', 'DESCENDING']]);
    expect(served(twoRanges, config([], [composite('orders', [['c', 'DESCENDING'], ['a', 'DESCENDING'], ['b', 'DESCENDING']])]))).toBe(true);
    expect(served(twoRanges, config([], [composite('orders', [['c', 'DESCENDING'], ['b', 'DESCENDING'], ['a', 'DESCENDING']])]))).toBe(false);
  });

  it('matches an array-contains filter only to an array-contains field', () => {
    const q = query([['tags', 'ARRAY_CONTAINS']], [['at', 'ASCENDING']]);
    expect(served(q, config([], [composite('orders', [['tags', 'CONTAINS'], ['at', 'ASCENDING']])]))).toBe(true);
    expect(served(q, config([], [composite('orders', [['tags', 'ASCENDING'], ['at', 'ASCENDING']])]))).toBe(false);
  });

  it('uses a composite index only for queries of its scope', () => {
    const fields: [string, Direction][] = [['fannedOutAt', 'ASCENDING'], ['createdAt', 'ASCENDING']];
    const q = query([['fannedOutAt', 'EQUAL'], ['createdAt', 'LESS_THAN']], [], { collectionGroupQuery: true });
    expect(served(q, config([], [composite('orders', fields, 'COLLECTION_GROUP')]))).toBe(true);
    expect(reason(q, config([], [composite('orders', fields)]))).toMatch(/orders \(COLLECTION_GROUP\): needs a composite index/);
  });

  it('needs a composite index even when every field keeps its single-field indexes (no exemption involved)', () => {
    expect(served(query([['a', 'GREATER_THAN'], ['b', 'LESS_THAN']]), config())).toBe(false);
  });

  it('does not need the exempted single-field indexes of the composite index fields', () => {
    const q = query([['customerId', 'EQUAL']], [['timestamp', 'DESCENDING']]);
    expect(served(q, config([exempt('orders', 'timestamp')], [composite('orders', [['customerId', 'ASCENDING'], ['timestamp', 'DESCENDING']])]))).toBe(true);
  });
});

describe('document ids and aggregations', () => {
  it('needs no index for document-id filters and orders, in either scope', () => {
    expect(served(query([['__name__', 'GREATER_THAN']], [['__name__', 'DESCENDING']]), config([exempt('orders', '*')]))).toBe(true);
    expect(served(query([['__name__', 'LESS_THAN']], [], { collectionGroupQuery: true }), config())).toBe(true);
    expect(served(query([]), config([exempt('orders', '*')]))).toBe(true);
    // ...but a field beside them still needs its own.
    expect(served(query([['__name__', 'GREATER_THAN'], ['status', 'EQUAL']]), config([exempt('orders', 'status')]))).toBe(false);
  });

  it('serves count() exactly as it serves the query', () => {
    const count = { aggregations: [{ kind: 'count' as const }] };
    expect(served(query([['status', 'EQUAL']], [], count), config())).toBe(true);
    expect(served(query([['status', 'EQUAL']], [], count), config([exempt('orders', 'status')]))).toBe(false);
  });

  it('needs the aggregated field in the index for sum() and avg()', () => {
    const total = { aggregations: [{ kind: 'sum' as const, field: 'amount' }] };
    expect(served(query([], [], total), config())).toBe(true);
    expect(reason(query([], [], total), config([exempt('orders', 'amount')]))).toMatch(/orders\.amount has no ASCENDING/);
    expect(served(query([['status', 'EQUAL']], [], total), config())).toBe(false);
  });
});

describe('queries as the client sends them (queryShapes.ts)', () => {
  // A client that never connects: toProto() only serialises the query.
  const db = new Firestore({ projectId: 'demo-planner' });
  type Protoable = { toProto(): { structuredQuery: Record<string, unknown>; structuredAggregationQuery?: Record<string, unknown> } };
  const shapes = (q: unknown) => plannedQueries((q as Protoable).toProto().structuredQuery);

  it('reads filters, orders, the document id and the collection-group flag', () => {
    const [shape] = shapes(db.collectionGroup('operators').where('email', '==', 'a@b.c').where('age', '==', null).orderBy(FieldPath.documentId(), 'desc'));
    expect(shape).toEqual({
      collectionGroup: 'operators',
      collectionGroupQuery: true,
      filters: [{ field: 'email', op: 'EQUAL' }, { field: 'age', op: 'IS_NULL' }],
      orderBy: [{ field: '__name__', direction: 'DESCENDING' }],
    });
  });

  it('splits an OR filter into one query per disjunct, each planned on its own', () => {
    const q = db.collection('orders').where(Filter.and(Filter.where('status', '==', 'open'), Filter.or(Filter.where('rail', '==', 'apple'), Filter.where('tags', 'array-contains', 'x'))));
    const disjuncts = shapes(q);
    expect(disjuncts.map((d) => d.filters)).toEqual([
      [{ field: 'status', op: 'EQUAL' }, { field: 'rail', op: 'EQUAL' }],
      [{ field: 'status', op: 'EQUAL' }, { field: 'tags', op: 'ARRAY_CONTAINS' }],
    ]);
    expect(disjuncts.map((d) => served(d, config([exempt('orders', 'tags')])))).toEqual([true, false]);
  });

  it('reads an aggregation from its request as the recorder does (and a query from its own)', () => {
    const count = (db.collection('orders').where('status', '==', 'open').count() as unknown as Protoable).toProto();
    const [{ aggregations, ...counted }] = requestQueries(count as unknown as Record<string, unknown>);
    expect(aggregations).toEqual([{ kind: 'count' }]);
    expect(counted).toMatchObject({ collectionGroup: 'orders', filters: [{ field: 'status', op: 'EQUAL' }] });
    const query = (db.collection('orders').where('status', '==', 'open') as unknown as Protoable).toProto();
    expect(requestQueries(query as unknown as Record<string, unknown>)).toEqual([counted]);
  });
});

describe('the deployed firestore.indexes.json', () => {
  const deployed = readIndexConfig();
  const real = (collectionGroup: string, filters: [string, FilterOp][], orderBy: [string, Direction][] = []) => query(filters, orderBy, { collectionGroup });

  it("serves the dashboard's customer audit trail and event pages from their composite indexes (dashboard/customerHistory.ts)", () => {
    expect(planQuery(real('audit', [['customerId', 'EQUAL']], [['processedAt', 'DESCENDING'], ['__name__', 'DESCENDING']]), deployed)).toMatchObject({ served: true, by: expect.stringMatching(/composite audit/) });
    expect(served(real('events', [['serviceCustomerId', 'EQUAL']], [['timestamp', 'DESCENDING'], ['__name__', 'DESCENDING']]), deployed)).toBe(true);
  });

  it('serves the customer list by status and email prefix, and the facet list (dashboard/customerList.ts)', () => {
    expect(served(real('customers', [['status', 'EQUAL'], ['email', 'GREATER_THAN_OR_EQUAL'], ['email', 'LESS_THAN']], [['email', 'ASCENDING'], ['__name__', 'ASCENDING']]), deployed)).toBe(true);
    expect(served(real('projections', [['listFacets', 'ARRAY_CONTAINS']], [['__name__', 'ASCENDING']]), deployed)).toBe(true);
  });

  it('refuses queries on the exempted fields of subscription records and audit entries', () => {
    expect(reason(real('subscriptions', [['customerId', 'EQUAL']]), deployed)).toMatch(/subscriptions\.customerId has no ASCENDING COLLECTION single-field index \(fieldOverrides subscriptions\.customerId: none\)/);
    expect(served(real('audit', [['eventId', 'EQUAL']]), deployed)).toBe(false);
    // The audit trail in the other direction has no index either.
    expect(served(real('audit', [['customerId', 'EQUAL']], [['processedAt', 'ASCENDING']]), deployed)).toBe(false);
  });
});
