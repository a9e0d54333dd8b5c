import type { Firestore, FirestoreDataConverter, Query, QueryDocumentSnapshot } from 'firebase-admin/firestore';
import { isEnv, type Env } from './env';
import { EnvScope } from './scope';

/** A document found across partitions, with the scope of the partition its path names. */
export interface PartitionedDocument<T> {
  readonly scope: EnvScope;
  readonly doc: QueryDocumentSnapshot<T>;
}

export interface AcrossPartitions<T> {
  /** Every document the query returned (those outside any partition included). */
  readonly found: number;
  /** The documents inside a partition, in the query's order. */
  readonly documents: PartitionedDocument<T>[];
}

/**
 * The one way across partitions (the sweeps, and an operator's id-only lookups): a
 * collection-group query over `collection`, narrowed by `narrow`, whose documents each come with
 * the scope of the partition their path names, `projects/{projectId}/envs/{env}/{collection}/{id}`.
 * Documents of the same partition share one scope. A document anywhere else (a same-named
 * collection outside a partition) is left out: nothing acts on a partition a path does not name.
 */
export async function queryAcrossPartitions<T, Found = T>(
  db: Firestore,
  collection: string,
  converter: FirestoreDataConverter<T>,
  // A keys-only sweep narrows to `select()`, whose documents carry no fields (and no type).
  narrow: (group: Query<T>) => Query<Found>,
): Promise<AcrossPartitions<Found>> {
  const snapshot = await narrow(db.collectionGroup(collection).withConverter(converter)).get();
  const scopes = new Map<string, EnvScope>();
  const documents: PartitionedDocument<Found>[] = [];
  for (const doc of snapshot.docs) {
    const partition = partitionOf(doc.ref.path, collection);
    if (!partition) continue;
    const key = `${partition.projectId}/${partition.env}`;
    let scope = scopes.get(key);
    if (!scope) scopes.set(key, (scope = new EnvScope(db, partition.projectId, partition.env)));
    documents.push({ scope, doc });
  }
  return { found: snapshot.size, documents };
}

/** The documents grouped by partition, partitions in order of their first document. */
export function byPartition<T>(documents: readonly PartitionedDocument<T>[]): { scope: EnvScope; docs: QueryDocumentSnapshot<T>[] }[] {
  const groups = new Map<EnvScope, QueryDocumentSnapshot<T>[]>();
  for (const { scope, doc } of documents) groups.set(scope, [...(groups.get(scope) ?? []), doc]);
  return [...groups].map(([scope, docs]) => ({ scope, docs }));
}

/**
 * Both partitions of one project, for operator changes to a project-level record (an app, a key,
 * an operator grant) whose audit entry goes to each environment's log, and for reading both
 * environments' settings of a verified rail notification's project.
 */
export function scopesOfProject(db: Firestore, projectId: string): Record<Env, EnvScope> {
  return { test: new EnvScope(db, projectId, 'test'), live: new EnvScope(db, projectId, 'live') };
}

const PROJECT_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** The partition a document path names, when it is `projects/{projectId}/envs/{env}/{collection}/{id}`. */
export function partitionOf(path: string, collection: string): { projectId: string; env: Env } | null {
  const parts = path.split('/');
  if (parts.length !== 6) return null;
  const [root, projectId, envs, env, name] = parts;
  if (root !== 'projects' || envs !== 'envs' || name !== collection || !PROJECT_ID.test(projectId) || !isEnv(env)) return null;
  return { projectId, env };
}
