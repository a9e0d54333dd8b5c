import { ENTITLEMENT_KEY } from '../ids';
import type { DocumentSnapshot, Transaction } from 'firebase-admin/firestore';
import type { EnvScope } from '../store/scope';
import type { CatalogRail } from '../wire/vocabulary';
import { storedRecord } from '../store/converters';

/**
 * The per-project, per-environment catalog, under the scope:
 *
 * - `catalogProducts/{rail}:{productId}`  CatalogProduct: which entitlement keys a rail product unlocks.
 * - `catalogEntitlements/{key}`           CatalogEntitlement: the registered entitlement keys.
 *
 * Rails look products up by id (one document read); operators set them with
 * `tessera products set`; migration registers every asserted key.
 */

export interface CatalogProduct {
  rail: CatalogRail;
  productId: string;
  entitlementKeys: string[];
  updatedAt: number;
}

export interface CatalogEntitlement {
  key: string;
  /** Who registered it first. */
  registeredBy: 'operator' | 'migration' | 'grant';
  createdAt: number;
}

export const CATALOG_PRODUCTS = 'catalogProducts';
export const CATALOG_ENTITLEMENTS = 'catalogEntitlements';

/** snake_case, 2–40 characters: the rule for every entitlement key the service registers (ids/). */
export const isEntitlementKey = ENTITLEMENT_KEY.is;

/** Rail product ids as the rails spell them (`prod_…`, `com.example.pro`, `pro_monthly`). */
const PRODUCT_ID = /^[A-Za-z0-9._:-]{1,200}$/;
export const isProductId = (id: unknown): id is string => typeof id === 'string' && PRODUCT_ID.test(id) && id !== '.' && id !== '..';

export const productDocId = (rail: CatalogRail, productId: string): string => `${rail}:${productId}`;
export const catalogProductRef = (scope: EnvScope, rail: CatalogRail, productId: string) => scope.doc(CATALOG_PRODUCTS, productDocId(rail, productId)).withConverter(catalogProductConverter);
export const catalogEntitlementRef = (scope: EnvScope, key: string) => scope.doc(CATALOG_ENTITLEMENTS, key).withConverter(catalogEntitlementConverter);
const catalogProducts = (scope: EnvScope) => scope.collection(CATALOG_PRODUCTS).withConverter(catalogProductConverter);

/**
 * The entitlement keys a rail product unlocks (empty when the product is not in the catalog).
 * Inside a transaction pass `tx` so the read is part of it.
 */
export async function entitlementKeysForProduct(scope: EnvScope, rail: CatalogRail, productId: string, tx?: Transaction): Promise<string[]> {
  if (!isProductId(productId)) return [];
  const ref = catalogProductRef(scope, rail, productId);
  let snapshot: DocumentSnapshot<CatalogProduct>;
  if (tx) {
    snapshot = await tx.get(ref);
  } else {
    snapshot = await scope.get(ref);
  }
  return entitlementKeysOf(snapshot);
}

/** The keys of a catalog product document read by `catalogProductRef` (empty when it does not exist). */
export const entitlementKeysOf = (snapshot: DocumentSnapshot<CatalogProduct>): string[] => [...(snapshot.data()?.entitlementKeys ?? [])];

/** Every product of one rail (one query); the migration gate matches subscriptions against it. */
export async function productsOfRail(scope: EnvScope, rail: CatalogRail): Promise<CatalogProduct[]> {
  const snapshot = await scope.query(catalogProducts(scope).where('rail', '==', rail));
  return snapshot.docs.map((doc) => doc.data());
}

/**
 * Registers keys that are not registered yet, inside the caller's transaction. `existing` are
 * the snapshots of `catalogEntitlementRef(scope, key)` for the same keys, read earlier in the
 * transaction (Firestore wants every read before the first write). Returns the keys it added.
 */
export function registerMissingKeys(
  tx: Transaction,
  scope: EnvScope,
  existing: readonly DocumentSnapshot[],
  registeredBy: CatalogEntitlement['registeredBy'],
  now: number,
): string[] {
  const added: string[] = [];
  for (const snapshot of existing) {
    if (snapshot.exists) continue;
    const entry: CatalogEntitlement = { key: snapshot.id, registeredBy, createdAt: now };
    tx.create(snapshot.ref, entry);
    added.push(snapshot.id);
  }
  return added;
}

/** Sets (replaces) a product's entitlement keys and registers those keys. */
export async function setProduct(scope: EnvScope, rail: CatalogRail, productId: string, keys: readonly string[], now: number): Promise<CatalogProduct> {
  const unique = [...new Set(keys)].sort();
  return scope.runTransaction(async (tx) => {
    const refs = unique.map((key) => catalogEntitlementRef(scope, key));
    const existing = refs.length ? await tx.getAll(...refs) : [];
    const product: CatalogProduct = { rail, productId, entitlementKeys: unique, updatedAt: now };
    tx.set(catalogProductRef(scope, rail, productId), product);
    registerMissingKeys(tx, scope, existing, 'operator', now);
    return product;
  });
}

export interface CatalogListing {
  entitlements: { key: string; registeredBy: CatalogEntitlement['registeredBy']; createdAt: number; products: { rail: CatalogRail; productId: string }[] }[];
  products: CatalogProduct[];
}

/** The whole catalog, keys sorted, each with the products that unlock it. */
export async function listCatalog(scope: EnvScope): Promise<CatalogListing> {
  const [entitlementDocs, productDocs] = await Promise.all([
    scope.query(scope.collection(CATALOG_ENTITLEMENTS).withConverter(catalogEntitlementConverter)),
    scope.query(catalogProducts(scope)),
  ]);
  const products = productDocs.docs
    .map((doc) => doc.data())
    .sort((a, b) => productDocId(a.rail, a.productId).localeCompare(productDocId(b.rail, b.productId)));
  const entitlements = entitlementDocs.docs
    .map((doc) => doc.data())
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((entry) => ({
      key: entry.key,
      registeredBy: entry.registeredBy,
      createdAt: entry.createdAt,
      products: products.filter((p) => p.entitlementKeys.includes(entry.key)).map((p) => ({ rail: p.rail, productId: p.productId })),
    }));
  return { entitlements, products };
}

export const catalogProductConverter = storedRecord<CatalogProduct>();
export const catalogEntitlementConverter = storedRecord<CatalogEntitlement>();
