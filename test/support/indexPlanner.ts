import type { IndexConfig } from './indexEntries';

/**
 * Would production Firestore serve this query with the indexes of `firestore.indexes.json`?
 * The emulator answers every query without any index, so this models the documented rules
 * (firebase.google.com/docs/firestore/query-data/index-overview, "Single-field indexes",
 * "Index merging", "Composite indexes"; the implicit ordering of StructuredQuery.orderBy in
 * the v1 REST reference) and is checked against every query the suite's service code runs
 * (queryRecorder.ts, globalTeardown.ts).
 *
 * The model is deliberately no more lenient than the documentation: where it is unsure it asks
 * for an index (a false alarm costs one index entry, a miss costs an outage).
 */

export type Direction = 'ASCENDING' | 'DESCENDING';

/** Operators as the client sends them (StructuredQuery FieldFilter / UnaryFilter). */
export type FilterOp =
  | 'EQUAL' | 'IN' | 'IS_NULL' | 'IS_NAN'
  | 'ARRAY_CONTAINS' | 'ARRAY_CONTAINS_ANY'
  | 'LESS_THAN' | 'LESS_THAN_OR_EQUAL' | 'GREATER_THAN' | 'GREATER_THAN_OR_EQUAL'
  | 'NOT_EQUAL' | 'NOT_IN' | 'IS_NOT_NULL' | 'IS_NOT_NAN';

/** One conjunctive query (an OR query is several: queryShapes.ts splits it into its disjuncts). */
export interface PlannedQuery {
  collectionGroup: string;
  /** A collection-group query (`allDescendants`): only COLLECTION_GROUP-scope indexes serve it. */
  collectionGroupQuery: boolean;
  filters: { field: string; op: FilterOp }[];
  orderBy: { field: string; direction: Direction }[];
  /** count() needs what the query needs; sum()/avg() scan the aggregated field's index entries too. */
  aggregations?: ({ kind: 'count' } | { kind: 'sum' | 'avg'; field: string })[];
}

export type Verdict = { served: true; by: string } | { served: false; reason: string };

export const DOCUMENT_ID = '__name__';

type Scope = 'COLLECTION' | 'COLLECTION_GROUP';
/** What an index field must offer: a value order (any direction for equality, or one direction), or array membership. */
type Need = { field: string; kind: 'equality' } | { field: string; kind: 'contains' } | { field: string; kind: 'order'; direction: Direction };

const EQUALITY: ReadonlySet<FilterOp> = new Set<FilterOp>(['EQUAL', 'IN', 'IS_NULL', 'IS_NAN']);
const CONTAINS: ReadonlySet<FilterOp> = new Set<FilterOp>(['ARRAY_CONTAINS', 'ARRAY_CONTAINS_ANY']);

const shortDir = (d: Direction) => (d === 'ASCENDING' ? 'asc' : 'desc');
const describeNeed = (need: Need): string =>
  need.kind === 'contains' ? `${need.field} array-contains` : need.kind === 'equality' ? `${need.field} ==` : `${need.field} ${shortDir(need.direction)}`;

/**
 * The single-field index modes a field has: the override for that collection group and field
 * path, else the nearest override of a parent map field (its sub-fields inherit it), else of `*`
 * (the collection group's own default), else the automatic ones (ascending, descending and
 * array-contains in COLLECTION scope; nothing in COLLECTION_GROUP scope).
 */
function singleFieldModes(config: IndexConfig, group: string, field: string, scope: Scope): { modes: Set<string>; source: string } {
  const overrides = config.fieldOverrides.filter((o) => o.collectionGroup === group);
  const segments = field.split('.');
  for (let length = segments.length; length >= 0; length -= 1) {
    const path = length === 0 ? '*' : segments.slice(0, length).join('.');
    const override = overrides.find((o) => o.fieldPath === path);
    if (!override) continue;
    const modes = new Set(override.indexes.filter((i) => (i.queryScope ?? 'COLLECTION') === scope).map((i) => i.arrayConfig ?? i.order ?? ''));
    const source = path === field ? `fieldOverrides ${group}.${field}` : `fieldOverrides ${group}.${path} (inherited by ${field})`;
    return { modes, source };
  }
  return { modes: scope === 'COLLECTION' ? new Set(['ASCENDING', 'DESCENDING', 'CONTAINS']) : new Set(), source: 'automatic indexing' };
}

/**
 * Whether the field's single-field index serves the need; if not, why (for the refusal). An
 * equality reads one run of equal values in document-id order, so it takes the index whose
 * direction is the query's document-id direction (no reverse scans are assumed); array-contains
 * takes the array-contains index.
 */
function singleFieldServes(config: IndexConfig, group: string, scope: Scope, need: Need, nameDirection: Direction): { ok: boolean; why: string } {
  const { modes, source } = singleFieldModes(config, group, need.field, scope);
  const wanted = need.kind === 'contains' ? 'CONTAINS' : need.kind === 'equality' ? nameDirection : need.direction;
  const has = modes.size === 0 ? 'none' : [...modes].join(', ');
  return { ok: modes.has(wanted), why: `${group}.${need.field} has no ${wanted} ${scope} single-field index (${source}: ${has})` };
}

interface Normalised {
  equalities: Need[];
  inequalities: string[];
  /** The full ordering Firestore applies, without the final document-id order. */
  orders: { field: string; direction: Direction }[];
  /** Direction of the final document-id order. */
  nameDirection: Direction;
  /** Whether the query orders by anything but the document id (then directions must match exactly). */
  ordered: boolean;
}

/**
 * Firestore's ordering of a query: the explicit orderBys, then every inequality field not yet
 * ordered (lexicographically, in the last order's direction, else ascending), then `__name__`
 * in that same direction unless ordered explicitly. Document-id filters and orders use the
 * built-in document-name order and need no index; fields ordered after `__name__` change
 * nothing (names are unique).
 */
function normalise(query: PlannedQuery): Normalised {
  const equalities: Need[] = [];
  const inequalities = new Set<string>();
  for (const { field, op } of query.filters) {
    if (field === DOCUMENT_ID) continue;
    if (CONTAINS.has(op)) equalities.push({ field, kind: 'contains' });
    else if (EQUALITY.has(op)) equalities.push({ field, kind: 'equality' });
    else inequalities.add(field);
  }
  const orders: { field: string; direction: Direction }[] = [];
  let nameDirection: Direction | null = null;
  for (const order of query.orderBy) {
    if (order.field === DOCUMENT_ID) {
      nameDirection = order.direction;
      break;
    }
    if (!orders.some((o) => o.field === order.field)) orders.push(order);
  }
  if (nameDirection === null) {
    const direction = orders.at(-1)?.direction ?? 'ASCENDING';
    for (const field of [...inequalities].sort()) if (!orders.some((o) => o.field === field)) orders.push({ field, direction });
    for (const aggregation of query.aggregations ?? []) {
      if (aggregation.kind !== 'count' && !orders.some((o) => o.field === aggregation.field)) orders.push({ field: aggregation.field, direction });
    }
    nameDirection = orders.at(-1)?.direction ?? 'ASCENDING';
  }
  // A field filtered by `==` is constant in the result: ordering by it too needs no index order.
  const constant = new Set(query.filters.filter((f) => f.op === 'EQUAL' || f.op === 'IS_NULL' || f.op === 'IS_NAN').map((f) => f.field));
  const effective = orders.filter((o) => !constant.has(o.field));
  return { equalities: dedupe(equalities), inequalities: [...inequalities], orders: effective, nameDirection, ordered: effective.length > 0 };
}

function dedupe(needs: Need[]): Need[] {
  const seen = new Map<string, Need>();
  for (const need of needs) seen.set(`${need.kind}:${need.field}`, need);
  return [...seen.values()];
}

type Composite = IndexConfig['indexes'][number];
const compositeMode = (f: Composite['fields'][number]) => f.arrayConfig ?? f.order ?? 'ASCENDING';
const describeComposite = (index: Composite) =>
  `${index.collectionGroup} (${index.queryScope}) [${index.fields.map((f) => `${f.fieldPath} ${f.arrayConfig ? 'array-contains' : shortDir((f.order ?? 'ASCENDING') as Direction)}`).join(', ')}]`;

/**
 * Whether a composite index is exactly the query's: its equality fields first (any order; an
 * array-contains filter on an array-contains field), then the ordering fields in order and
 * direction, then `__name__` in the query's direction (listed, or implied by the last field's).
 */
function compositeMatches(index: Composite, equalities: Need[], orders: { field: string; direction: Direction }[], nameDirection: Direction): boolean {
  const fields = [...index.fields];
  const last = fields.at(-1);
  let indexNameDirection: Direction = (fields.at(-1)?.order as Direction | undefined) ?? 'ASCENDING';
  if (last?.fieldPath === DOCUMENT_ID) {
    indexNameDirection = (last.order as Direction | undefined) ?? 'ASCENDING';
    fields.pop();
  }
  if (fields.length !== equalities.length + orders.length) return false;
  const prefix = fields.slice(0, equalities.length);
  const rest = fields.slice(equalities.length);
  const prefixOk = equalities.every((need) =>
    prefix.some((f) => f.fieldPath === need.field && (need.kind === 'contains' ? compositeMode(f) === 'CONTAINS' : compositeMode(f) !== 'CONTAINS')),
  );
  const restOk = orders.every((order, i) => rest[i].fieldPath === order.field && compositeMode(rest[i]) === order.direction);
  return prefixOk && restOk && indexNameDirection === nameDirection;
}

export function planQuery(query: PlannedQuery, config: IndexConfig): Verdict {
  const scope: Scope = query.collectionGroupQuery ? 'COLLECTION_GROUP' : 'COLLECTION';
  const group = query.collectionGroup;
  const { equalities, inequalities, orders, nameDirection, ordered } = normalise(query);
  const where = `${group} (${scope})`;

  // Only document ids: the built-in document-name index.
  if (equalities.length === 0 && orders.length === 0) return { served: true, by: 'the built-in document-name order' };

  const composites = config.indexes.filter((i) => i.collectionGroup === group && (i.queryScope ?? 'COLLECTION') === scope);

  // One field ordered (a range, an inequality, an orderBy): its single-field index in that direction.
  if (equalities.length === 0 && orders.length === 1) {
    const need: Need = { field: orders[0].field, kind: 'order', direction: orders[0].direction };
    const single = singleFieldServes(config, group, scope, need, nameDirection);
    if (single.ok && nameDirection === orders[0].direction) return { served: true, by: `single-field index ${group}.${need.field} ${shortDir(need.direction)}` };
    const composite = composites.find((c) => compositeMatches(c, [], orders, nameDirection));
    if (composite) return { served: true, by: `composite ${describeComposite(composite)}` };
    return { served: false, reason: single.ok ? `${where}: ordering ${describeNeed(need)} then __name__ ${shortDir(nameDirection)} needs a composite index with __name__ listed` : single.why };
  }

  // The full composite index, equality fields first (any order), then the ordering.
  const exact = composites.find((c) => compositeMatches(c, equalities, orders, nameDirection));
  if (exact) return { served: true, by: `composite ${describeComposite(exact)}` };

  // Index merging: equality filters (no inequality) each served by their own index that is
  // followed by the query's ordering: the single-field index when the ordering is only the
  // document id, else a composite [field, ...ordering].
  const missing: string[] = [];
  if (inequalities.length === 0 && equalities.length > 0) {
    for (const need of equalities) {
      if (!ordered) {
        const single = singleFieldServes(config, group, scope, need, nameDirection);
        if (!single.ok) missing.push(single.why);
      } else if (!composites.some((c) => compositeMatches(c, [need], orders, nameDirection))) {
        missing.push(`no composite index ${group} [${describeNeed(need)}, ${orders.map((o) => `${o.field} ${shortDir(o.direction)}`).join(', ')}] to merge`);
      }
    }
    if (missing.length === 0) {
      return { served: true, by: ordered ? `merged composite indexes on ${equalities.map((e) => e.field).join(', ')}` : `merged single-field indexes on ${equalities.map((e) => e.field).join(', ')}` };
    }
  }

  // Equality filters only: nothing but their single-field indexes would do (one is missing).
  const wanted = [...equalities.map(describeNeed), ...orders.map((o) => `${o.field} ${shortDir(o.direction)}`)].join(', ');
  if (!ordered && inequalities.length === 0 && missing.length > 0) {
    return { served: false, reason: `${where}: ${missing.join('; ')}${equalities.length > 1 ? ` (or a composite index [${wanted}])` : ''}` };
  }
  const why = missing.length > 0 ? ` (${missing.join('; ')})` : inequalities.length > 0 && equalities.length > 0 ? ' (an inequality beside equality filters cannot merge single-field indexes)' : '';
  return { served: false, reason: `${where}: needs a composite index [${wanted}]${why}` };
}
