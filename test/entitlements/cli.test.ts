/**
 * Guarantees of the operator commands `tessera products set`, `tessera entitlements list` and
 * `tessera rails set stripe`: they write the catalog and the rails configuration of exactly the
 * named project and environment, validate their arguments, store references only (a value that
 * looks like a Stripe secret is refused without being echoed), and the rails lookup
 * `entitlementKeysForProduct` sees what `products set` wrote.
 */
import { COMMANDS } from '../../functions/src/cli/registry';
import type { Values } from '../../functions/src/cli/command';
import { OperatorError } from '../../functions/src/cli/operatorError';
import { entitlementKeysForProduct } from '../../functions/src/entitlements/catalog';
import { readRailsConfig } from '../../functions/src/rails/config';
import { EnvScope } from '../../functions/src/store/scope';
import { createTestService, seedProject, type SeededProject, type TestService } from '../support/harness';

let service: TestService;
let project: SeededProject;
beforeAll(async () => {
  service = createTestService();
  project = await seedProject(service);
});

async function run(name: string, values: Values): Promise<unknown> {
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) throw new Error(`no command ${name}`);
  return command.run(values, { db: service.deps.db, clock: service.clock, stdin: async () => '' });
}
const scope = (env: 'test' | 'live') => new EnvScope(service.deps.db, project.projectId, env);

describe('tessera products set / entitlements list', () => {
  it('maps a product to entitlement keys in one environment, registers the keys, and lists them', async () => {
    const out = await run('products set', { project: project.projectId, env: 'test', rail: 'apple', product: 'com.example.pro.monthly', entitlement: ['pro', 'sync'] });
    expect(out).toEqual({ projectId: project.projectId, env: 'test', product: { rail: 'apple', productId: 'com.example.pro.monthly', entitlementKeys: ['pro', 'sync'] } });
    await run('products set', { project: project.projectId, env: 'test', rail: 'stripe', product: 'prod_ABC', entitlement: ['pro'] });
    expect(await entitlementKeysForProduct(scope('test'), 'apple', 'com.example.pro.monthly')).toEqual(['pro', 'sync']);
    expect(await entitlementKeysForProduct(scope('live'), 'apple', 'com.example.pro.monthly')).toEqual([]);
    expect(await entitlementKeysForProduct(scope('test'), 'google', 'com.example.pro.monthly')).toEqual([]);

    const listed = (await run('entitlements list', { project: project.projectId, env: 'test' })) as { entitlements: { key: string; products: unknown[] }[] };
    expect(listed.entitlements.map((e) => [e.key, e.products])).toEqual([
      ['pro', [{ rail: 'apple', productId: 'com.example.pro.monthly' }, { rail: 'stripe', productId: 'prod_ABC' }]],
      ['sync', [{ rail: 'apple', productId: 'com.example.pro.monthly' }]],
    ]);
    expect(await run('entitlements list', { project: project.projectId, env: 'live' })).toEqual({ projectId: project.projectId, env: 'live', entitlements: [], products: [] });
  });

  it('setting a product again replaces its keys', async () => {
    await run('products set', { project: project.projectId, env: 'test', rail: 'google', product: 'gold_yearly', entitlement: 'gold' });
    await run('products set', { project: project.projectId, env: 'test', rail: 'google', product: 'gold_yearly', entitlement: ['platinum'] });
    expect(await entitlementKeysForProduct(scope('test'), 'google', 'gold_yearly')).toEqual(['platinum']);
  });

  it('refuses bad arguments and unknown projects', async () => {
    const base = { project: project.projectId, env: 'test', rail: 'apple', product: 'p1', entitlement: ['pro'] };
    await expect(run('products set', { ...base, rail: 'paypal' })).rejects.toThrow(OperatorError);
    await expect(run('products set', { ...base, env: 'prod' })).rejects.toThrow(OperatorError);
    await expect(run('products set', { ...base, entitlement: [] })).rejects.toThrow(/--entitlement/);
    await expect(run('products set', { ...base, entitlement: ['Pro-Plan'] })).rejects.toThrow(/snake_case/);
    await expect(run('products set', { ...base, product: 'a/b' })).rejects.toThrow(/--product/);
    await expect(run('products set', { ...base, project: 'proj_missing' })).rejects.toThrow(/No project/);
  });
});

describe('tessera rails set stripe', () => {
  it('stores the two references for one environment and prints references only', async () => {
    const out = await run('rails set stripe', { project: project.projectId, env: 'live', 'secret-key-ref': 'stripe-live-key', 'webhook-secret-ref': 'stripe-live-webhook' });
    expect(out).toEqual({ projectId: project.projectId, env: 'live', stripe: { secretKeyRef: 'stripe-live-key', webhookSecretRef: 'stripe-live-webhook' } });
    expect((await readRailsConfig(scope('live'))).stripe).toEqual({ secretKeyRef: 'stripe-live-key', webhookSecretRef: 'stripe-live-webhook' });
    expect((await readRailsConfig(scope('test'))).stripe).toBeUndefined();
  });

  it('refuses a Secret Manager path: a reference names a secret inside this project only', async () => {
    // Another tenant's secrets (or any secret of the Google Cloud project) cannot be named.
    for (const ref of ['projects/gcp/secrets/tessera-proj_other-stripe-live-key', 'projects/gcp/secrets/x/versions/1']) {
      const error = await run('rails set stripe', { project: project.projectId, env: 'test', 'secret-key-ref': ref, 'webhook-secret-ref': 'hook' }).catch((e: Error) => e);
      expect(error).toBeInstanceOf(OperatorError);
      expect((error as Error).message).toMatch(/inside this project only/);
    }
    expect((await readRailsConfig(scope('test'))).stripe).toBeUndefined();
  });

  it('refuses a Stripe secret passed in place of a reference, without echoing it', async () => {
    const secret = 'sk_live_51HxxxxREALLOOKINGSECRET';
    const error = await run('rails set stripe', { project: project.projectId, env: 'test', 'secret-key-ref': secret, 'webhook-secret-ref': 'hook' }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(OperatorError);
    expect((error as Error).message).not.toContain(secret);
    await expect(run('rails set stripe', { project: project.projectId, env: 'test', 'secret-key-ref': 'key', 'webhook-secret-ref': 'whsec_abc' })).rejects.toThrow(/looks like a Stripe secret/);
    await expect(run('rails set stripe', { project: project.projectId, env: 'test', 'secret-key-ref': 'key' })).rejects.toThrow(/--webhook-secret-ref/);
    expect((await readRailsConfig(scope('test'))).stripe).toBeUndefined();
  });
});
