import type { Direction, FilterOp, PlannedQuery } from './indexPlanner';

/**
 * The planner's view of a query as the Firestore client sends it (`google.firestore.v1`
 * StructuredQuery, and StructuredAggregationQuery around it): an OR filter becomes one
 * conjunctive query per disjunct (Firestore serves each disjunct from its own index).
 */

type Proto = Record<string, unknown>;
type Conjunction = { field: string; op: FilterOp }[];

const fieldPathOf = (reference: unknown): string => String((reference as Proto | undefined)?.fieldPath ?? '');

/** The filter as a disjunction of conjunctions (disjunctive normal form). */
function disjuncts(filter: Proto | undefined): Conjunction[] {
  if (!filter) return [[]];
  if (filter.fieldFilter) {
    const f = filter.fieldFilter as Proto;
    return [[{ field: fieldPathOf(f.field), op: f.op as FilterOp }]];
  }
  if (filter.unaryFilter) {
    const f = filter.unaryFilter as Proto;
    return [[{ field: fieldPathOf(f.field), op: f.op as FilterOp }]];
  }
  const composite = filter.compositeFilter as Proto | undefined;
  if (!composite) return [[]];
  const parts = ((composite.filters as Proto[] | undefined) ?? []).map(disjuncts);
  if (composite.op === 'OR') return parts.flat();
  // AND: every combination of one disjunct of each part.
  return parts.reduce<Conjunction[]>((acc, part) => acc.flatMap((left) => part.map((right) => [...left, ...right])), [[]]);
}

/** The conjunctive queries a runQuery/runAggregationQuery request's structured query stands for. */
export function plannedQueries(structuredQuery: Proto, aggregations?: Proto[]): PlannedQuery[] {
  const from = ((structuredQuery.from as Proto[] | undefined) ?? [])[0] ?? {};
  const orderBy = ((structuredQuery.orderBy as Proto[] | undefined) ?? []).map((o) => ({
    field: fieldPathOf(o.field),
    direction: (o.direction === 'DESCENDING' ? 'DESCENDING' : 'ASCENDING') as Direction,
  }));
  const planned = aggregations?.map((a) => {
    if (a.sum) return { kind: 'sum' as const, field: fieldPathOf((a.sum as Proto).field) };
    if (a.avg) return { kind: 'avg' as const, field: fieldPathOf((a.avg as Proto).field) };
    return { kind: 'count' as const };
  });
  return disjuncts(structuredQuery.where as Proto | undefined).map((filters) => ({
    collectionGroup: String(from.collectionId ?? ''),
    collectionGroupQuery: from.allDescendants === true,
    filters,
    orderBy,
    ...(planned ? { aggregations: planned } : {}),
  }));
}

/** The conjunctive queries of a query's or an aggregation's request (`toProto()`), whichever it is. */
export function requestQueries(request: Proto): PlannedQuery[] {
  const aggregation = request.structuredAggregationQuery as Proto | undefined;
  return aggregation
    ? plannedQueries(aggregation.structuredQuery as Proto, aggregation.aggregations as Proto[])
    : plannedQueries(request.structuredQuery as Proto);
}
