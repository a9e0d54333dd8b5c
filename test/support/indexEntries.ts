import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Timestamp, type DocumentData } from 'firebase-admin/firestore';

/** firestore.indexes.json, as deployed. */
export interface IndexConfig {
  indexes: { collectionGroup: string; queryScope: string; fields: { fieldPath: string; order?: string; arrayConfig?: string }[] }[];
  fieldOverrides: { collectionGroup: string; fieldPath: string; ttl?: boolean; indexes: { arrayConfig?: string; order?: string; queryScope: string }[] }[];
}

export const readIndexConfig = (): IndexConfig => JSON.parse(readFileSync(join(__dirname, '../../firestore.indexes.json'), 'utf8')) as IndexConfig;

const isMap = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Timestamp) && !Buffer.isBuffer(value);

/** Field paths of a document's values (maps entered, arrays and timestamps whole), with the value. */
export function leafFields(doc: DocumentData, stopAt: ReadonlySet<string> = new Set()): [string, unknown][] {
  const leaves: [string, unknown][] = [];
  const walk = (prefix: string, value: unknown): void => {
    if (isMap(value) && !stopAt.has(prefix)) for (const [key, child] of Object.entries(value)) walk(prefix ? `${prefix}.${key}` : key, child);
    else leaves.push([prefix, value]);
  };
  walk('', doc);
  return leaves;
}

/** Values the client validates and encodes for a document (each map and array counts too). */
export function valueCount(value: unknown): number {
  if (!isMap(value) && !Array.isArray(value)) return 1;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + children.reduce<number>((sum, child) => sum + valueCount(child), 0);
}

/**
 * Index entries Firestore writes for one document of `group`: its automatic single-field indexes
 * (ascending and descending per non-array value, array-contains per distinct array element, maps
 * entered) unless a field override names the field (then exactly the override's indexes), plus
 * one entry per composite index whose fields the document all has.
 */
export function indexEntries(doc: DocumentData, config: IndexConfig, group: string): number {
  const overrides = new Map(config.fieldOverrides.filter((o) => o.collectionGroup === group).map((o) => [o.fieldPath, o.indexes]));
  const distinct = (value: unknown): number => (Array.isArray(value) ? new Set(value.map((v) => JSON.stringify(v))).size : 0);
  let entries = 0;
  for (const [path, value] of leafFields(doc, new Set(overrides.keys()))) {
    const override = overrides.get(path);
    if (override) for (const index of override) entries += index.arrayConfig ? distinct(value) : 1;
    else entries += Array.isArray(value) ? distinct(value) : 2;
  }
  const has = (path: string) => path.split('.').reduce<unknown>((node, key) => (isMap(node) ? node[key] : undefined), doc) !== undefined;
  for (const composite of config.indexes.filter((i) => i.collectionGroup === group)) if (composite.fields.every((f) => has(f.fieldPath))) entries += 1;
  return entries;
}
