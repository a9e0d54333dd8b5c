/**
 * Guarantees of POST /v1/migration/users: secret key only; 1–1000 rows (missing or empty → 400
 * missing_required_param, more → 400 invalid_param_value); rows processed in order, a bad row
 * never blocks its siblings; matched / created / conflicts (never merged) counted; idempotent
 * re-runs; the rail-owned gate against a local fake of the Stripe API (live → skipped as
 * rail-backed, lapsed → skipped, no rail → manual grant, API failing → undetermined and a
 * re-run resolves it); asserted keys registered in the catalog; the projection equals a
 * recomputation; the Stripe secret key never appears in a response.
 */
import type { GrantRecord, ProjectionDoc } from '../../functions/src/entitlements/model';
import { projectEntitlements } from '../../functions/src/entitlements/projection';
import { setProduct } from '../../functions/src/entitlements/catalog';
import { linkHints } from '../../functions/src/identity/repository';
import { findCustomerIdByIdentity } from '../../functions/src/customers/lookup';
import type { CustomerRecord } from '../../functions/src/customers/model';
import { writeRailConfig } from '../../functions/src/rails/config';
import { LocalSecretStore, secretEnvVarName } from '../../functions/src/secrets/store';
import { EnvScope } from '../../functions/src/store/scope';
import { describeSecuredRoute } from '../support/securitySuite';
import { createTestService, expectError, seedProject, type SeededProject, type TestService } from '../support/harness';
import { bearer, seedRailGrant } from '../entitlements/support';
import { FakeStripe } from './fakeStripe';

describeSecuredRoute({ method: 'POST', path: '/v1/migration/users', key: 'secret', body: { users: [{ developerUserId: 'security_suite_user' }] } });

const STRIPE_SECRET = 'sk_test_fake_secret_for_migration_0123456789';
const stripe = new FakeStripe();
let service: TestService;
let project: SeededProject;
let scope: EnvScope;
let seq = 0;
const uid = (label: string) => `${label}_${Date.now()}_${(seq += 1)}`;

beforeAll(async () => {
  await stripe.start();
  const secretEnvironment: Record<string, string> = {};
  service = createTestService({
    secrets: new LocalSecretStore({ environment: secretEnvironment, file: null }),
    rails: { stripeApi: stripe.api },
  });
  project = await seedProject(service);
  secretEnvironment[secretEnvVarName(project.projectId, 'stripe-test-secret-key')] = STRIPE_SECRET;
  scope = new EnvScope(service.deps.db, project.projectId, 'test');
  await writeRailConfig(scope, 'stripe', { secretKeyRef: 'stripe-test-secret-key', webhookSecretRef: 'stripe-test-webhook-secret' }, service.clock.now());
});
afterAll(async () => {
  await stripe.stop();
});
beforeEach(() => {
  stripe.failing = false;
});

const migrate = (users: unknown, key = project.web.test.secret) => service.request().post('/v1/migration/users').set(bearer(key)).send(users === undefined ? {} : { users });

async function grantsOf(customerId: string, s = scope): Promise<GrantRecord[]> {
  return (await s.collection('grants').where('customerId', '==', customerId).get()).docs.map((d) => d.data() as GrantRecord);
}
async function projectionOf(customerId: string): Promise<ProjectionDoc | null> {
  const snapshot = await scope.doc('projections', customerId).get();
  return snapshot.exists ? (snapshot.data() as ProjectionDoc) : null;
}
const customerOf = async (userId: string) => findCustomerIdByIdentity(scope, 'developer', userId);

describe('request rules', () => {
  it('missing or empty users: 400 missing_required_param; not an array or more than 1000 rows: 400 invalid_param_value', async () => {
    expectError(await migrate(undefined), 400, 'invalid_request_error', 'missing_required_param');
    expectError(await migrate([]), 400, 'invalid_request_error', 'missing_required_param');
    expectError(await migrate({ developerUserId: 'x' }), 400, 'invalid_request_error', 'invalid_param_value');
    const tooMany = Array.from({ length: 1001 }, (_, i) => ({ developerUserId: `u${i}` }));
    expectError(await migrate(tooMany), 400, 'invalid_request_error', 'invalid_param_value');
    expect(await customerOf('u0')).toBeNull();
  });

  it('accepts exactly 1000 rows', async () => {
    const res = await migrate(Array.from({ length: 1000 }, () => ({})));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ totalRows: 1000, errors: 1000, created: 0 });
    expect(res.body.details.errors[999]).toEqual({ rowIndex: 999, developerUserId: null, reason: 'developerUserId_required' });
  });
});

describe('linking rows to customers', () => {
  it('creates customers, links their rail ids, stores email and traits, and reports every counter', async () => {
    const alice = uid('alice');
    const bob = uid('bob');
    const cus = uid('cus');
    const res = await migrate([
      { developerUserId: alice, email: 'alice@example.com', displayName: 'Alice', traits: { plan: 'gold', nested: { dropped: true } }, cardCustomerId: cus },
      { developerUserId: bob, storeAOriginalTransactionId: '2000000123456789', storeAAppAccountToken: 'A1B2C3D4-E5F6-4A7B-8C9D-0E1F2A3B4C5D', storeBPurchaseToken: 'token.abc-123', storeBObfuscatedAccountId: 'acct_77' },
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'migration_result',
      env: 'sandbox',
      totalRows: 2,
      matched: 0,
      created: 2,
      conflicts: 0,
      errors: 0,
      entitlementsGranted: 0,
      entitlementsSkippedRailBacked: 0,
      entitlementsSkippedLapsed: 0,
      entitlementsUndetermined: 0,
      entitlementKeysRegistered: 0,
      details: { conflicts: [], errors: [] },
      processedAt: service.clock.now(),
    });
    const aliceId = await customerOf(alice);
    expect(await findCustomerIdByIdentity(scope, 'stripe', cus)).toBe(aliceId);
    const record = (await scope.doc('customers', aliceId!).get()).data() as CustomerRecord;
    expect(record.email).toBe('alice@example.com');
    expect(record.traits).toEqual({ plan: 'gold', displayName: 'Alice' });
    const bobId = await customerOf(bob);
    expect(bobId).not.toBe(aliceId);
    expect(await findCustomerIdByIdentity(scope, 'apple_otx', '2000000123456789')).toBe(bobId);
    expect(await findCustomerIdByIdentity(scope, 'apple_aat', 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d')).toBe(bobId);
    expect(await findCustomerIdByIdentity(scope, 'google_token', 'token.abc-123')).toBe(bobId);
    expect(await findCustomerIdByIdentity(scope, 'google_account', 'acct_77')).toBe(bobId);
  });

  it('matches an existing rail customer: the developer user id joins the customer the rail id already belongs to', async () => {
    const cus = uid('cus');
    const { customerId } = await linkHints(scope, [{ kind: 'stripe', id: cus }], 'rail', service.clock.now());
    const user = uid('carol');
    const res = await migrate([{ developerUserId: user, stripeCustomerId: cus }]);
    expect(res.body).toMatchObject({ matched: 1, created: 0, conflicts: 0 });
    expect(await customerOf(user)).toBe(customerId);
  });

  it('rail keys that resolve to different customers are a conflict, reported and never merged', async () => {
    const user = uid('dave');
    const cus = uid('cus');
    const { customerId: byUser } = await linkHints(scope, [{ kind: 'developer', id: user }], 'self_asserted', service.clock.now());
    const { customerId: byCard } = await linkHints(scope, [{ kind: 'stripe', id: cus }], 'rail', service.clock.now());
    const res = await migrate([{ developerUserId: user, cardCustomerId: cus, entitlements: { conflict_key: true } }]);
    expect(res.body).toMatchObject({ matched: 0, created: 0, conflicts: 1, entitlementsGranted: 0, entitlementKeysRegistered: 1 });
    expect(res.body.details.conflicts).toEqual([{ developerUserId: user, railResolutions: { developer: byUser, stripe: byCard }, reason: 'rail_keys_resolve_to_different_customers' }]);
    expect(await customerOf(user)).toBe(byUser);
    expect(await findCustomerIdByIdentity(scope, 'stripe', cus)).toBe(byCard);
    expect(await grantsOf(byUser!)).toEqual([]);
    expect(await grantsOf(byCard!)).toEqual([]);
    expect((await scope.doc('customers', byCard!).get()).data()!.status).toBe('active');
  });

  it('a bad row never blocks its siblings: each is reported with its index and reason', async () => {
    const good1 = uid('good');
    const good2 = uid('good');
    const res = await migrate([
      { email: 'nobody@example.com' },
      { developerUserId: good1, entitlements: { early_access: true } },
      'not a row',
      { developerUserId: 'x'.repeat(257) },
      { developerUserId: uid('badkey'), entitlements: { 'Not-Snake': true } },
      { developerUserId: uid('badtoken'), storeAAppAccountToken: 'not-a-uuid' },
      { developerUserId: uid('badtraits'), traits: { t: 'x'.repeat(1025) } },
      { developerUserId: uid('twonames'), cardCustomerId: 'cus_a', stripeCustomerId: 'cus_b' },
      { developerUserId: good2 },
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ totalRows: 9, created: 2, errors: 7, entitlementsGranted: 1 });
    expect(res.body.details.errors).toEqual([
      { rowIndex: 0, developerUserId: null, reason: 'developerUserId_required' },
      { rowIndex: 2, developerUserId: null, reason: 'row_invalid' },
      { rowIndex: 3, developerUserId: 'x'.repeat(256), reason: 'developerUserId_invalid' },
      { rowIndex: 4, developerUserId: expect.stringMatching(/^badkey_/), reason: 'entitlementKey_invalid' },
      { rowIndex: 5, developerUserId: expect.stringMatching(/^badtoken_/), reason: 'storeAAppAccountToken_invalid' },
      { rowIndex: 6, developerUserId: expect.stringMatching(/^badtraits_/), reason: 'traits_invalid' },
      { rowIndex: 7, developerUserId: expect.stringMatching(/^twonames_/), reason: 'cardCustomerId_conflicting_values' },
    ]);
    expect(await customerOf(good1)).not.toBeNull();
    expect(await customerOf(good2)).not.toBeNull();
  });
});

describe('the rail-owned gate', () => {
  it('live subscription → skipped as rail-backed; lapsed → skipped; no rail → manual grant; keys registered', async () => {
    const live = uid('cus_live');
    const lapsed = uid('cus_lapsed');
    const none = uid('cus_none');
    stripe.subscriptions.set(live, [{ id: 'sub_live', status: 'active', product: 'prod_pro' }]);
    stripe.subscriptions.set(lapsed, [{ id: 'sub_old', status: 'canceled', product: 'prod_pro' }]);
    stripe.subscriptions.set(none, []);
    const users = [
      { developerUserId: uid('u_live'), cardCustomerId: live, entitlements: { gate_pro: true } },
      { developerUserId: uid('u_lapsed'), cardCustomerId: lapsed, entitlements: { gate_pro: true } },
      { developerUserId: uid('u_none'), cardCustomerId: none, entitlements: { gate_pro: true, gate_extra: true, gate_off: false } },
      { developerUserId: uid('u_norail'), entitlements: { gate_pro: true } },
    ];
    const res = await migrate(users);
    expect(res.body).toMatchObject({
      created: 4,
      entitlementsGranted: 3,
      entitlementsSkippedRailBacked: 1,
      entitlementsSkippedLapsed: 1,
      entitlementsUndetermined: 0,
      entitlementKeysRegistered: 2,
    });
    expect(stripe.seenAuthorizations.every((h) => h === `Bearer ${STRIPE_SECRET}`)).toBe(true);
    expect(JSON.stringify(res.body)).not.toContain(STRIPE_SECRET);

    const liveId = (await customerOf(users[0].developerUserId))!;
    expect(await grantsOf(liveId)).toEqual([]);
    const noneId = (await customerOf(users[2].developerUserId))!;
    const read = await service.request().get(`/v1/server/customers/${noneId}/entitlements`).set(bearer(project.web.test.secret));
    expect(read.body.data).toEqual([
      { object: 'entitlement', key: 'gate_extra', isActive: true, validUntil: null, source: { rail: 'manual', productId: 'migration', subscriptionId: `mig_${noneId}_gate_extra` }, updatedAt: Math.floor(service.clock.now() / 1000) },
      { object: 'entitlement', key: 'gate_pro', isActive: true, validUntil: null, source: { rail: 'manual', productId: 'migration', subscriptionId: `mig_${noneId}_gate_pro` }, updatedAt: Math.floor(service.clock.now() / 1000) },
    ]);
    expect((await projectionOf(noneId))!.entitlements).toEqual(projectEntitlements(await grantsOf(noneId), 0));
    expect((await scope.doc('catalogEntitlements', 'gate_pro').get()).data()).toMatchObject({ key: 'gate_pro', registeredBy: 'migration' });
    expect((await scope.doc('catalogEntitlements', 'gate_off').get()).exists).toBe(false);

    // Every decision is audited.
    const audits = (await scope.collection('audit').where('customerId', 'in', [liveId, noneId]).get()).docs.map((d) => d.data());
    expect(audits.map((a) => [a.eventType, a.decision, a.reason]).sort()).toEqual(
      [
        ['entitlement.granted_by_migration', 'applied', 'no_rail_behind_customer'],
        ['entitlement.granted_by_migration', 'applied', 'no_rail_behind_customer'],
        ['entitlement.migration_skipped', 'no_op', 'stripe_subscription_live'],
      ].sort(),
    );
    expect(audits.every((a) => /^srv_migration_[A-Za-z0-9]{24}$/.test(a.eventId))).toBe(true);
  });

  it('only subscriptions of products that unlock the key count when the catalog maps the key', async () => {
    await setProduct(scope, 'stripe', 'prod_team', ['mapped_team'], service.clock.now());
    const cus = uid('cus_other');
    stripe.subscriptions.set(cus, [{ id: 'sub_other', status: 'active', product: 'prod_unrelated' }]);
    const cus2 = uid('cus_team');
    stripe.subscriptions.set(cus2, [{ id: 'sub_team', status: 'trialing', product: 'prod_team' }]);
    const res = await migrate([
      { developerUserId: uid('other'), cardCustomerId: cus, entitlements: { mapped_team: true } },
      { developerUserId: uid('team'), cardCustomerId: cus2, entitlements: { mapped_team: true } },
    ]);
    expect(res.body).toMatchObject({ entitlementsGranted: 1, entitlementsSkippedRailBacked: 1 });
  });

  it('a rail that already grants the key (recorded by its notifications) owns it', async () => {
    const user = uid('railed');
    const { customerId } = await linkHints(scope, [{ kind: 'developer', id: user }], 'self_asserted', service.clock.now());
    await seedRailGrant(service, project, customerId!, 'recorded_pro', { rail: 'apple' });
    const res = await migrate([{ developerUserId: user, entitlements: { recorded_pro: true } }]);
    expect(res.body).toMatchObject({ matched: 1, entitlementsSkippedRailBacked: 1, entitlementsGranted: 0 });
  });

  it('Stripe failing → undetermined with no grant; a re-run with Stripe back resolves it', async () => {
    const cus = uid('cus_flaky');
    const user = uid('flaky');
    stripe.subscriptions.set(cus, []);
    stripe.failing = true;
    const first = await migrate([{ developerUserId: user, cardCustomerId: cus, entitlements: { flaky_pro: true } }]);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ created: 1, entitlementsUndetermined: 1, entitlementsGranted: 0, entitlementKeysRegistered: 1 });
    const customerId = (await customerOf(user))!;
    expect(await grantsOf(customerId)).toEqual([]);
    const [audit] = (await scope.collection('audit').where('customerId', '==', customerId).get()).docs.map((d) => d.data());
    expect(audit).toMatchObject({ eventType: 'entitlement.migration_undetermined', decision: 'no_op', reason: 'stripe_unreadable:StripeAPIError', toState: 'undetermined' });
    expect(JSON.stringify(first.body)).not.toContain('failing on purpose');
    stripe.failing = false;
    const second = await migrate([{ developerUserId: user, cardCustomerId: cus, entitlements: { flaky_pro: true } }]);
    expect(second.body).toMatchObject({ created: 0, matched: 1, entitlementsUndetermined: 0, entitlementsGranted: 1, entitlementKeysRegistered: 0 });
    expect(await grantsOf(customerId)).toHaveLength(1);
  });

  it('without a Stripe configuration the rail is unreadable: undetermined', async () => {
    const other = await seedProject(service);
    const res = await migrate([{ developerUserId: uid('unconfigured'), cardCustomerId: 'cus_x', entitlements: { pro: true } }], other.web.test.secret);
    expect(res.body).toMatchObject({ entitlementsUndetermined: 1, entitlementsGranted: 0 });
  });
});

describe('idempotence and partitioning', () => {
  it('running the same request twice creates no customer and grants nothing twice, even after a revoke', async () => {
    const cus = uid('cus_idem');
    stripe.subscriptions.set(cus, []);
    const users = [
      { developerUserId: uid('idem_a'), cardCustomerId: cus, entitlements: { idem_pro: true } },
      { developerUserId: uid('idem_b'), entitlements: { idem_pro: true, idem_plus: true } },
    ];
    const first = await migrate(users);
    expect(first.body).toMatchObject({ created: 2, matched: 0, entitlementsGranted: 3, entitlementKeysRegistered: 2 });
    const customersBefore = (await scope.collection('customers').count().get()).data().count;
    const bId = (await customerOf(users[1].developerUserId))!;
    const revoked = await service.request().post(`/v1/server/customers/${bId}/revoke`).set(bearer(project.web.test.secret)).send({ entitlementKey: 'idem_plus', reason: 'operator took it back' });
    expect(revoked.status).toBe(200);

    const second = await migrate(users);
    expect(second.body).toMatchObject({ created: 0, matched: 2, conflicts: 0, errors: 0, entitlementsGranted: 0, entitlementKeysRegistered: 0 });
    expect((await scope.collection('customers').count().get()).data().count).toBe(customersBefore);
    const bGrants = await grantsOf(bId);
    expect(bGrants).toHaveLength(2);
    expect(bGrants.find((g) => g.entitlementKey === 'idem_plus')!.revokedAt).not.toBeNull();
    expect((await projectionOf(bId))!.entitlements).toEqual(projectEntitlements(bGrants, 0));
  });

  it('a migration with a live key touches only the live partition', async () => {
    const user = uid('liveonly');
    const res = await migrate([{ developerUserId: user, entitlements: { live_pro: true } }], project.web.live.secret);
    expect(res.body).toMatchObject({ env: 'production', created: 1, entitlementsGranted: 1 });
    expect(await customerOf(user)).toBeNull();
    const liveScope = new EnvScope(service.deps.db, project.projectId, 'live');
    expect(await findCustomerIdByIdentity(liveScope, 'developer', user)).not.toBeNull();
    expect((await scope.doc('catalogEntitlements', 'live_pro').get()).exists).toBe(false);
  });
});

describe('parallel requests', () => {
  it('8 parallel requests whose rows share keys (and two a user) all land: one grant per customer and key, projections equal recomputations', async () => {
    const shared = uid('par_shared');
    const users = Array.from({ length: 6 }, (_, i) => uid(`par_${i}`));
    const rows = [...users, shared, shared].map((developerUserId) => [{ developerUserId, entitlements: { par_pro: true, par_plus: true } }]);
    const answers = await Promise.all(rows.map((users) => migrate(users)));
    for (const res of answers) expect(res.body).toMatchObject({ totalRows: 1, errors: 0, conflicts: 0 });
    // The shared user's two rows apply once, in some order: one creates and grants, the other matches.
    expect(answers.reduce((sum, res) => sum + res.body.entitlementsGranted, 0)).toBe(2 * (users.length + 1));
    for (const user of [...users, shared]) {
      const customerId = (await customerOf(user))!;
      const grants = await grantsOf(customerId);
      expect(grants.map((g) => g.entitlementKey).sort()).toEqual(['par_plus', 'par_pro']);
      expect((await projectionOf(customerId))!.entitlements).toEqual(projectEntitlements(grants, 0));
    }
  });
});

describe('contention', () => {
  it('a row refused under contention is reported as rate_limited and lands when sent again', async () => {
    const { writeKeys, writeQueue, MAX_WAITING_PER_KEY } = await import('../../functions/src/store/writeQueue');
    const { identityDocId } = await import('../../functions/src/customers/model');
    const user = uid('busy');
    // Fill this user's identity queue on the instance: the running holder plus a full line behind it.
    const key = writeKeys.identity(scope, identityDocId('developer', user));
    let release!: () => void;
    const holder = writeQueue.run([key], () => new Promise<void>((resolve) => (release = resolve)));
    const line = Array.from({ length: MAX_WAITING_PER_KEY }, () => writeQueue.run([key], async () => undefined));
    const refused = await migrate([{ developerUserId: user, entitlements: { busy_pro: true } }]);
    expect(refused.body).toMatchObject({ errors: 1, created: 0, details: { errors: [{ rowIndex: 0, developerUserId: user, reason: 'rate_limited' }] } });
    release();
    await Promise.all([holder, ...line]);
    const again = await migrate([{ developerUserId: user, entitlements: { busy_pro: true } }]);
    expect(again.body).toMatchObject({ errors: 0, created: 1, entitlementsGranted: 1 });
  });
});
