/**
 * Guarantee of the rail decision transaction towards the shared projection: however rail
 * decisions and manual grants for one customer interleave, the stored projection equals a
 * recomputation from the customer's grants, and no grant (rail or manual) is ever lost — the
 * grants read ahead of the transaction are used only while the projection has not changed since
 * they were read.
 */
import { randomUUID } from 'node:crypto';
import type { GrantRecord, ProjectionDoc } from '../../functions/src/entitlements/model';
import { grantManually } from '../../functions/src/entitlements/manualGrants';
import { projectEntitlements } from '../../functions/src/entitlements/projection';
import { linkHints } from '../../functions/src/identity/repository';
import { EnvScope } from '../../functions/src/store/scope';
import type { Query, QuerySnapshot } from 'firebase-admin/firestore';
import { stripeEvent, stripeIds, stripeSubscription } from './support/stripeFake';
import { decideStripeSubscription } from './support/stripeDecision';
import { createRailsWorld, postStripe, type RailsWorld } from './support/railsWorld';

let world: RailsWorld;
beforeAll(async () => {
  world = await createRailsWorld();
});
afterAll(async () => {
  await world.stop();
});

it('keeps the projection equal to its grants under concurrent rail decisions and manual grants', async () => {
  const scope = world.scope('test');
  const stripeCustomer = stripeIds.customer();
  const { customerId } = await linkHints(scope, [{ kind: 'developer', id: `user_${randomUUID()}` }, { kind: 'stripe', id: stripeCustomer }], 'self_asserted', world.service.clock.now());
  const subscriptions = Array.from({ length: 4 }, () => stripeSubscription({ id: stripeIds.subscription(), customer: stripeCustomer }));
  for (const sub of subscriptions) world.stripe.subscriptions.set(sub.id as string, sub);

  const manual = ['beta_access', 'support_plus', 'team_seats', 'early_bird'];
  const results = await Promise.all([
    ...subscriptions.map((sub) => postStripe(world, stripeEvent('customer.subscription.created', sub))),
    ...manual.map((key) =>
      grantManually(scope, { customerId: customerId!, entitlementKey: key, duration: 'P30D', reason: 'Concurrency check: manual grant beside rail events' }, { requestId: 'test', keyId: 'test' }, world.service.clock.now()),
    ),
  ]);
  for (const res of results.slice(0, subscriptions.length)) expect((res as { status: number }).status).toBe(200);

  const grants = (await scope.collection('grants').where('customerId', '==', customerId).get()).docs.map((d) => d.data() as GrantRecord);
  expect(grants.filter((g) => g.source.rail === 'stripe')).toHaveLength(subscriptions.length);
  expect(grants.filter((g) => g.source.rail === 'manual').map((g) => g.entitlementKey).sort()).toEqual([...manual].sort());
  const projection = (await scope.doc('projections', customerId!).get()).data() as ProjectionDoc;
  expect(projection.entitlements).toEqual(projectEntitlements(grants, world.service.clock.now()));
  expect(Object.keys(projection.entitlements).sort()).toEqual([...manual, 'pro'].sort());
});

it('re-reads the grants in the transaction when a grant landed after they were read ahead', async () => {
  const plain = world.scope('test');
  const { customerId } = await linkHints(plain, [{ kind: 'developer', id: `user_${randomUUID()}` }], 'self_asserted', world.service.clock.now());
  const now = world.service.clock.now();
  /** A scope whose read-ahead of the grants is overtaken by a manual grant before the transaction starts. */
  class OvertakenScope extends EnvScope {
    private overtaken = false;
    override async query<T>(query: Query<T>): Promise<QuerySnapshot<T>> {
      const result = await super.query(query);
      if (!this.overtaken) {
        this.overtaken = true;
        await grantManually(plain, { customerId: customerId!, entitlementKey: 'beta_access', duration: 'P30D', reason: 'Lands between the read-ahead and the transaction' }, { requestId: 't', keyId: 't' }, now);
      }
      return result;
    }
  }
  const subscriptionId = stripeIds.subscription();
  const outcome = await decideStripeSubscription(world, {
    scope: new OvertakenScope(world.service.deps.db, world.project.projectId, 'test'),
    customer: { customerId: customerId!, allLinkedBefore: false, check: null },
    subscriptionId,
    now,
  });
  expect(outcome.decision).toBe('applied');
  const projection = (await plain.doc('projections', customerId!).get()).data() as ProjectionDoc;
  expect(Object.keys(projection.entitlements).sort()).toEqual(['beta_access', 'pro']);
});
