import { isEntitlementKey, isProductId, listCatalog, setProduct } from '../../entitlements/catalog';
import { CATALOG_RAILS } from '../../wire/vocabulary';
import { getProject } from '../../projects/repository';
import { ENVS } from '../../store/env';
import { EnvScope } from '../../store/scope';
import type { Firestore } from 'firebase-admin/firestore';
import type { Env } from '../../store/env';
import { requireOneOf, requireString, stringList, type Command, type Values } from '../command';
import { OperatorError } from '../operatorError';

/** The scope of `--project ID --env test|live`, after checking that the project exists. */
export async function operatorScope(db: Firestore, values: Values): Promise<EnvScope> {
  const projectId = requireString(values, 'project');
  const env: Env = requireOneOf(values, 'env', ENVS);
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(projectId)) throw new OperatorError('not_found', `No project ${projectId}.`);
  const project = await getProject(db, projectId);
  if (project.archived) throw new OperatorError('archived', `Project ${projectId} is archived.`);
  return new EnvScope(db, projectId, env);
}

export const catalogCommands: Command[] = [
  {
    name: 'products set',
    summary: '--project ID --env test|live --rail apple|stripe|google --product PRODUCT_ID --entitlement KEY…   (replaces the product’s keys)',
    options: { project: { type: 'string' }, env: { type: 'string' }, rail: { type: 'string' }, product: { type: 'string' }, entitlement: { type: 'string', multiple: true } },
    async run(values, { db, clock }) {
      const rail = requireOneOf(values, 'rail', CATALOG_RAILS);
      const productId = requireString(values, 'product');
      if (!isProductId(productId)) throw new OperatorError('invalid_argument', '--product must be 1–200 characters of letters, digits and . _ : -.');
      const keys = stringList(values, 'entitlement');
      if (keys.length === 0) throw new OperatorError('invalid_argument', 'At least one --entitlement KEY is required.');
      const invalid = keys.find((key) => !isEntitlementKey(key));
      if (invalid !== undefined) throw new OperatorError('invalid_argument', `Entitlement key '${invalid}' is not snake_case of 2–40 characters.`);
      const scope = await operatorScope(db, values);
      const product = await setProduct(scope, rail, productId, keys, clock.now());
      return { projectId: scope.projectId, env: scope.env, product: { rail: product.rail, productId: product.productId, entitlementKeys: product.entitlementKeys } };
    },
  },
  {
    name: 'entitlements list',
    summary: '--project ID --env test|live   (registered entitlement keys and the products that unlock them)',
    options: { project: { type: 'string' }, env: { type: 'string' } },
    async run(values, { db }) {
      const scope = await operatorScope(db, values);
      const catalog = await listCatalog(scope);
      return {
        projectId: scope.projectId,
        env: scope.env,
        entitlements: catalog.entitlements,
        products: catalog.products.map((p) => ({ rail: p.rail, productId: p.productId, entitlementKeys: p.entitlementKeys })),
      };
    },
  },
];
