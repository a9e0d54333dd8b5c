/**
 * The spec's identity merge rule (issue 19 §1): "two identifiers resolve to different customers,
 * both already known → `mergePending: true`; the developer-userId customer is returned as
 * canonical; a conflict is queued for review; never silently merged". It holds when the device
 * belongs to another developer user's customer (identify, the bulk alias, and the merge-conflict
 * webhook after an operator resolves it), and for rail identifiers: an appAccountToken owned by
 * another person's customer never joins a newcomer, never hands it the owner's customer id or
 * entitlements, and never changes the owner's profile. A rail-keyed customer without a developer
 * id (a purchase before any login) is still claimed by the user who identifies with its token.
 */
import { DAY } from '../../functions/src/clock';
import type { ConflictRecord } from '../../functions/src/identity/conflictModel';
import type { CustomerRecord, IdentityIndexEntry } from '../../functions/src/customers/model';
import { linkHints, linkMigratedUser } from '../../functions/src/identity/repository';
import { customerRef, identityRef } from '../../functions/src/customers/refs';
import { EnvScope } from '../../functions/src/store/scope';
import { operatorCommands } from '../support/operatorCommands';
import { createTestService, lockHeaders, seedProject, type SeededProject, type TestService } from '../support/harness';
import { eventsOf } from '../webhooks/support/outbox';
import { seedGrants } from './support/grants';

let service: TestService;
let project: SeededProject;
const { tessera } = operatorCommands(() => service);
const pub = () => ({ Authorization: `Bearer ${project.ios.test.publishable}`, ...lockHeaders('ios') });
const secret = () => ({ Authorization: `Bearer ${project.ios.test.secret}` });
const identify = (body: object) => service.request().post('/v1/identify').set(pub()).send(body);
const entitlements = (query: Record<string, string>) => service.request().get('/v1/entitlements').query(query).set(pub());
const scope = () => new EnvScope(service.deps.db, project.projectId, 'test');
const customer = async (id: string) => (await customerRef(scope(), id).get()).data() as CustomerRecord;
const entry = async (kind: IdentityIndexEntry['kind'], id: string) => (await identityRef(scope(), kind, id).get()).data() as IdentityIndexEntry;
const keys = (body: { data: { key: string }[] }) => body.data.map((e) => e.key);
const conflictsOf = async (canonical: string) => (await scope().collection('identityConflicts').where('canonicalCustomerId', '==', canonical).get()).docs.map((d) => d.data() as ConflictRecord);

/** User `name` identified on `deviceId` (with `token` when given), owning a paid `pro` entitlement. */
async function payingOwner(name: string, deviceId: string, token?: string): Promise<string> {
  const res = await identify({ userId: name, anonymousId: deviceId, email: `${name}@example.com`, traits: { plan: 'pro' }, ...(token ? { appAccountToken: token } : {}) });
  expect(res.status).toBe(200);
  const customerId = res.body.serviceCustomerId as string;
  const now = service.clock.now();
  await seedGrants(scope(), customerId, [{ entitlementKey: 'pro', validUntil: now + 30 * DAY, source: { rail: 'apple', productId: 'pro_monthly', subscriptionId: `otx_${name}` } }], now);
  return customerId;
}

beforeAll(async () => {
  service = createTestService();
  project = await seedProject(service);
});
beforeEach(() => service.clock.advance(61_000)); // a refilled alias bucket per test

describe('two known customers', () => {
  it('identify {u1, a2} with a2 bound to u2’s customer: u1’s customer, mergePending, one conflict, nothing moved; an operator merge sends customer.merged', async () => {
    const u2Customer = await payingOwner('rule-u2', 'rule-a2');
    const u1Customer = (await identify({ userId: 'rule-u1', anonymousId: 'rule-a1' })).body.serviceCustomerId as string;

    const res = await identify({ userId: 'rule-u1', anonymousId: 'rule-a2' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ serviceCustomerId: u1Customer, mergePending: true });
    expect(await entry('anonymous', 'rule-a2')).toMatchObject({ customerId: u2Customer });
    expect((await entry('anonymous', 'rule-a2')).movedFrom).toBeUndefined();
    expect((await customer(u2Customer)).identities.map((i) => i.id)).toEqual(['rule-u2', 'rule-a2']);
    expect((await customer(u1Customer)).identities.map((i) => i.id)).toEqual(['rule-u1', 'rule-a1']);
    expect(keys((await entitlements({ anonymousId: 'rule-a2' })).body)).toEqual(['pro']); // still u2's device
    expect((await entitlements({ userId: 'rule-u1' })).body).toMatchObject({ data: [], serviceCustomerId: u1Customer });
    const [conflict] = await conflictsOf(u1Customer);
    expect(conflict).toMatchObject({ status: 'open', otherCustomerIds: [u2Customer] });

    // Only the operator merges; the merge tells receivers.
    const report = await tessera('conflicts resolve', { conflict: conflict.conflictId, merge: true });
    expect(report).toMatchObject({ decision: 'merged', canonicalCustomerId: u1Customer, mergedCustomerIds: [u2Customer] });
    const merged = (await eventsOf(service, project.projectId, 'test', u1Customer)).filter((e) => e.type === 'customer.merged');
    expect(merged.map((e) => e.payload.data)).toEqual([{ serviceCustomerId: u1Customer, mergedCustomerIds: [u2Customer], cause: { rail: 'manual', auditEventId: report.auditEventId } }]);
  });

  it('the bulk alias applies the same rule', async () => {
    const u2Customer = await payingOwner('bulkrule-u2', 'bulkrule-a2');
    const u1Customer = (await identify({ userId: 'bulkrule-u1', anonymousId: 'bulkrule-a1' })).body.serviceCustomerId as string;
    const res = await service.request().post('/v1/server/customers/alias').set(secret()).send({ links: [{ userId: 'bulkrule-u1', anonymousId: 'bulkrule-a2' }] });
    expect(res.body).toMatchObject({ mergePending: 1, results: [{ index: 0, serviceCustomerId: u1Customer, mergePending: true }] });
    expect((await entry('anonymous', 'bulkrule-a2')).customerId).toBe(u2Customer);
    expect(await conflictsOf(u1Customer)).toEqual([expect.objectContaining({ otherCustomerIds: [u2Customer] })]);
  });
});

describe('rail identifiers', () => {
  const victimToken = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b';

  it('a newcomer with another user’s appAccountToken gets its own customer and a conflict: no id, entitlement or profile of the owner crosses', async () => {
    const victimCustomer = await payingOwner('victim', 'victim-phone', victimToken);

    const res = await identify({ userId: 'newcomer', anonymousId: 'newcomer-phone', appAccountToken: victimToken, email: 'attacker@example.com', traits: { plan: 'stolen', city: 'Nowhere' } });
    expect(res.status).toBe(200);
    const own = res.body.serviceCustomerId as string;
    expect(own).not.toBe(victimCustomer);
    expect(res.body.mergePending).toBe(true);

    // The owner's profile and identifiers are untouched; the token stays his.
    const victim = await customer(victimCustomer);
    expect(victim).toMatchObject({ email: 'victim@example.com', traits: { plan: 'pro' } });
    expect(victim.identities.map((i) => i.id)).toEqual(['victim', 'victim-phone', victimToken]);
    expect((await entry('apple_aat', victimToken)).customerId).toBe(victimCustomer);
    // The newcomer's profile went to its own customer.
    expect(await customer(own)).toMatchObject({ email: 'attacker@example.com', traits: { plan: 'stolen', city: 'Nowhere' } });
    expect((await customer(own)).identities.map((i) => i.id)).toEqual(['newcomer', 'newcomer-phone']);
    // The newcomer reads nothing, by any hint.
    for (const query of [{ userId: 'newcomer' }, { customerId: own }, { anonymousId: 'newcomer-phone' }] as Record<string, string>[]) {
      expect((await entitlements(query)).body).toMatchObject({ data: [], serviceCustomerId: own });
    }
    expect(keys((await entitlements({ userId: 'victim' })).body)).toEqual(['pro']);
    // A merge conflict like any other, for review.
    expect(await conflictsOf(own)).toEqual([
      expect.objectContaining({
        status: 'open',
        otherCustomerIds: [victimCustomer],
        identities: [
          { kind: 'developer', id: 'newcomer', customerId: own },
          { kind: 'apple_aat', id: victimToken, customerId: victimCustomer },
        ],
      }),
    ]);
  });

  it('a known user with another user’s appAccountToken: the user’s own customer, a conflict, the owner’s profile untouched', async () => {
    const token = '7a2b3c4d-5e6f-4a70-8b9c-0d1e2f3a4b5c';
    const ownerCustomer = await payingOwner('token-owner', 'token-owner-phone', token);
    const own = (await identify({ userId: 'token-other', anonymousId: 'token-other-phone' })).body.serviceCustomerId as string;
    const res = await identify({ userId: 'token-other', anonymousId: 'token-other-phone', appAccountToken: token, email: 'other@example.com' });
    expect(res.body).toMatchObject({ serviceCustomerId: own, mergePending: true });
    expect(await customer(ownerCustomer)).toMatchObject({ email: 'token-owner@example.com' });
    expect((await entry('apple_aat', token)).customerId).toBe(ownerCustomer);
  });

  it('a migration row naming another user’s card-processor customer is a conflict: the row’s user never joins that customer', async () => {
    const ownerCustomer = (await linkMigratedUser(scope(), [{ kind: 'developer', id: 'card-owner' }, { kind: 'stripe', id: 'cus_card_owner' }], { email: 'owner@example.com', traits: {} }, service.clock.now())).customerId!;
    const row = await linkMigratedUser(scope(), [{ kind: 'developer', id: 'card-newcomer' }, { kind: 'stripe', id: 'cus_card_owner' }], { email: 'newcomer@example.com', traits: { plan: 'x' } }, service.clock.now());
    expect(row.customerId).not.toBe(ownerCustomer);
    expect(row).toMatchObject({ created: true, mergePending: true, conflictId: expect.stringMatching(/^cfl_test_/) });
    expect((await entry('stripe', 'cus_card_owner')).customerId).toBe(ownerCustomer);
    expect((await entry('developer', 'card-newcomer')).customerId).toBe(row.customerId);
    expect(await customer(ownerCustomer)).toMatchObject({ email: 'owner@example.com', traits: {} });
  });

  it('a rail-keyed customer without a developer id (bought before login) is claimed by the user who identifies with its token', async () => {
    const token = '8b3c4d5e-6f70-4b81-9cad-1e2f3a4b5c6d';
    const railCustomer = (await linkHints(scope(), [{ kind: 'apple_otx', id: 'otx-before-login' }, { kind: 'apple_aat', id: token }], 'rail', service.clock.now())).customerId!;
    const now = service.clock.now();
    await seedGrants(scope(), railCustomer, [{ entitlementKey: 'pro', validUntil: now + DAY }], now);
    const res = await identify({ userId: 'buyer', anonymousId: 'buyer-phone', appAccountToken: token });
    expect(res.body).toMatchObject({ serviceCustomerId: railCustomer, mergePending: false });
    expect(keys((await entitlements({ userId: 'buyer' })).body)).toEqual(['pro']);
  });
});
