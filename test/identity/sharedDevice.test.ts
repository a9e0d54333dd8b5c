/**
 * Guarantees that one developer user id is one person, under the spec's merge rule (issue 11
 * item 4, issue 19 §1): a device bound to another developer user's customer never makes a second
 * user id join that customer. A newcomer (no customer yet) gets its own customer and the device's
 * binding moves to it, journalled (the device's index entry and one `customer.device_moved`
 * audit entry); nothing is merged and no entitlement crosses. A user who already has a customer
 * is the spec's case "two identifiers resolve to different customers, both known": the
 * developer-userId customer is returned with `mergePending: true`, a conflict is queued and
 * nothing moves, on identify, on an account switch back, in the bulk alias and in event
 * resolution. A device bound only to an anonymous customer is still claimed by the user who logs
 * in on it. Verified resolve, the bulk alias and event resolution treat a newcomer like identify.
 */
import type { AuditEntry } from '../../functions/src/audit/model';
import { DAY } from '../../functions/src/clock';
import type { CustomerRecord, IdentityIndexEntry } from '../../functions/src/customers/model';
import { linkHints } from '../../functions/src/identity/repository';
import { customerRef, identityRef } from '../../functions/src/customers/refs';
import { EnvScope } from '../../functions/src/store/scope';
import { createTestService, lockHeaders, seedProject, type SeededProject, type TestService } from '../support/harness';
import { event, postEvents, storedEvent } from '../events/support';
import { seedGrants } from './support/grants';
import { configureProvider, startProvider } from './support/tokens';

let service: TestService;
let project: SeededProject;
const pub = () => ({ Authorization: `Bearer ${project.ios.test.publishable}`, ...lockHeaders('ios') });
const identify = (body: object, via: TestService = service) => via.request().post('/v1/identify').set(pub()).send(body);
const entitlements = (query: Record<string, string>) => service.request().get('/v1/entitlements').query(query).set(pub());
const scope = () => new EnvScope(service.deps.db, project.projectId, 'test');
const customer = async (id: string) => (await customerRef(scope(), id).get()).data() as CustomerRecord;
const device = async (id: string) => (await identityRef(scope(), 'anonymous', id).get()).data() as IdentityIndexEntry;
const keys = (body: { data: { key: string }[] }) => body.data.map((e) => e.key);

/** The device-move journal entries between the given customers, oldest first. */
async function moves(customerIds: string[]): Promise<AuditEntry[]> {
  const snapshot = await scope().collection('audit').where('eventType', '==', 'customer.device_moved').get();
  return snapshot.docs
    .map((d) => d.data() as AuditEntry)
    .filter((e) => customerIds.includes(e.details!.fromCustomerId as string) && customerIds.includes(e.details!.toCustomerId as string))
    .sort((a, b) => a.processedAt - b.processedAt);
}

/** User `name` identified on `deviceId`, owning a paid `pro` entitlement. */
async function payingOwner(name: string, deviceId: string): Promise<string> {
  const res = await identify({ userId: name, anonymousId: deviceId, traits: { plan: 'pro' } });
  expect(res.status).toBe(200);
  const customerId = res.body.serviceCustomerId as string;
  const now = service.clock.now();
  await seedGrants(scope(), customerId, [{ entitlementKey: 'pro', validUntil: now + 30 * DAY, source: { rail: 'stripe', productId: 'prod_pro', subscriptionId: `sub_${name}` } }], now);
  return customerId;
}

beforeAll(async () => {
  service = createTestService();
  project = await seedProject(service);
});
// The alias bucket is per project: give each test a refilled bucket.
beforeEach(() => service.clock.advance(61_000));

describe('shared device', () => {
  it('a newcomer on the owner’s device gets its own customer; the binding moves, journalled; no entitlement crosses', async () => {
    const ownerCustomer = await payingOwner('owner-a', 'shared-d');
    service.clock.advance(1_000);

    const res = await identify({ userId: 'newcomer-b', anonymousId: 'shared-d' });
    expect(res.status).toBe(200);
    const newcomerCustomer = res.body.serviceCustomerId as string;
    expect(res.body).toEqual({
      object: 'alias_result',
      serviceCustomerId: expect.stringMatching(/^cdcust_/),
      linked: [
        { type: 'developer', id: 'newcomer-b' },
        { type: 'anonymous', id: 'shared-d' },
      ],
      mergePending: false,
      env: 'sandbox',
    });
    expect(newcomerCustomer).not.toBe(ownerCustomer);

    // The device is the newcomer's now; the owner keeps his customer, minus the device.
    expect(await device('shared-d')).toMatchObject({ customerId: newcomerCustomer, movedFrom: { customerId: ownerCustomer, at: service.clock.now() } });
    expect((await customer(newcomerCustomer)).identities).toEqual([
      { kind: 'developer', id: 'newcomer-b' },
      { kind: 'anonymous', id: 'shared-d' },
    ]);
    const owner = await customer(ownerCustomer);
    expect(owner).toMatchObject({ status: 'active', traits: { plan: 'pro' } });
    expect(owner.identities).toEqual([{ kind: 'developer', id: 'owner-a' }]);

    // No entitlement crosses: the newcomer reads nothing by userId, customer id or device.
    for (const query of [{ userId: 'newcomer-b' }, { customerId: newcomerCustomer }, { anonymousId: 'shared-d' }] as Record<string, string>[]) {
      expect((await entitlements(query)).body).toMatchObject({ data: [], serviceCustomerId: newcomerCustomer });
    }
    expect(keys((await entitlements({ userId: 'owner-a' })).body)).toEqual(['pro']);
    expect(keys((await entitlements({ customerId: ownerCustomer })).body)).toEqual(['pro']);

    // Journalled once, nothing merged, no conflict queued.
    const journal = await moves([ownerCustomer, newcomerCustomer]);
    expect(journal).toEqual([
      expect.objectContaining({
        eventId: expect.stringMatching(/^srv_device_move_/),
        eventType: 'customer.device_moved',
        customerId: newcomerCustomer,
        decision: 'applied',
        details: { fromCustomerId: ownerCustomer, toCustomerId: newcomerCustomer, identityKind: 'anonymous', assurance: 'self_asserted', surface: 'identify' },
      }),
    ]);
    expect(JSON.stringify(journal)).not.toContain('shared-d'); // the audit log keeps no device id
    const conflicts = await scope().collection('identityConflicts').where('otherCustomerIds', 'array-contains', ownerCustomer).get();
    expect(conflicts.size).toBe(0);

    // Re-identifying the newcomer's pair is idempotent and journals nothing more.
    expect((await identify({ userId: 'newcomer-b', anonymousId: 'shared-d' })).body.serviceCustomerId).toBe(newcomerCustomer);
    expect(await moves([ownerCustomer, newcomerCustomer])).toHaveLength(1);
  });

  it('the account switch back is a merge conflict: the owner’s customer answers, mergePending, nothing moves', async () => {
    const ownerCustomer = await payingOwner('switch-a', 'switch-d');
    service.clock.advance(1_000);
    const other = (await identify({ userId: 'switch-b', anonymousId: 'switch-d' })).body.serviceCustomerId as string;
    service.clock.advance(1_000);

    const back = await identify({ userId: 'switch-a', anonymousId: 'switch-d' });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ serviceCustomerId: ownerCustomer, mergePending: true });
    // Nothing moved: the device stays with the newcomer it moved to, each customer keeps its own.
    expect((await device('switch-d')).customerId).toBe(other);
    expect((await customer(ownerCustomer)).identities).toEqual([{ kind: 'developer', id: 'switch-a' }]);
    expect((await customer(other)).identities).toEqual([
      { kind: 'developer', id: 'switch-b' },
      { kind: 'anonymous', id: 'switch-d' },
    ]);
    expect((await entitlements({ anonymousId: 'switch-d' })).body).toMatchObject({ data: [], serviceCustomerId: other });
    expect(keys((await entitlements({ userId: 'switch-a' })).body)).toEqual(['pro']);

    const journal = await moves([ownerCustomer, other]);
    expect(journal.map((e) => [e.details!.fromCustomerId, e.details!.toCustomerId])).toEqual([[ownerCustomer, other]]);
    const conflicts = await scope().collection('identityConflicts').where('canonicalCustomerId', '==', ownerCustomer).get();
    expect(conflicts.docs.map((d) => d.data())).toEqual([expect.objectContaining({ status: 'open', otherCustomerIds: [other] })]);
  });

  it('a user who already has a customer, on another user’s device: mergePending, conflict queued, the device stays (spec’s merge rule)', async () => {
    const ownerCustomer = await payingOwner('elsewhere-a', 'elsewhere-d');
    const own = (await identify({ userId: 'elsewhere-b', anonymousId: 'elsewhere-b-phone' })).body.serviceCustomerId as string;

    const res = await identify({ userId: 'elsewhere-b', anonymousId: 'elsewhere-d' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ serviceCustomerId: own, mergePending: true });
    expect((await device('elsewhere-d')).customerId).toBe(ownerCustomer);
    expect((await device('elsewhere-d')).movedFrom).toBeUndefined();
    expect((await customer(own)).identities.map((i) => i.id)).toEqual(['elsewhere-b', 'elsewhere-b-phone']);
    expect((await customer(ownerCustomer)).identities.map((i) => i.id)).toEqual(['elsewhere-a', 'elsewhere-d']);
    expect((await entitlements({ userId: 'elsewhere-b' })).body).toMatchObject({ data: [], serviceCustomerId: own });
    expect(keys((await entitlements({ userId: 'elsewhere-a' })).body)).toEqual(['pro']);
    const conflicts = await scope().collection('identityConflicts').where('canonicalCustomerId', '==', own).get();
    expect(conflicts.docs.map((d) => d.data())).toEqual([
      expect.objectContaining({ status: 'open', otherCustomerIds: [ownerCustomer], identities: [expect.objectContaining({ kind: 'developer', customerId: own }), expect.objectContaining({ kind: 'anonymous', customerId: ownerCustomer })] }),
    ]);
    expect(await moves([ownerCustomer, own])).toHaveLength(0);

    // Repeating it changes nothing and queues no second conflict.
    expect((await identify({ userId: 'elsewhere-b', anonymousId: 'elsewhere-d' })).body).toMatchObject({ serviceCustomerId: own, mergePending: true });
    expect((await scope().collection('identityConflicts').where('canonicalCustomerId', '==', own).get()).size).toBe(1);
  });

  it('a verified owner’s tier-2 device stamp does not follow the device to the newcomer', async () => {
    const ownerCustomer = await payingOwner('stamp-a', 'stamp-d');
    // As a verified identify or resolve would have left it.
    await identityRef(scope(), 'anonymous', 'stamp-d').update({ verifiedAt: service.clock.now(), assurance: 'verified' });
    await identify({ userId: 'stamp-b', anonymousId: 'stamp-d' });
    const entry = await device('stamp-d');
    expect(entry).toMatchObject({ assurance: 'self_asserted', movedFrom: { customerId: ownerCustomer } });
    expect(entry.verifiedAt).toBeUndefined();
    const resolved = await service.request().post('/v1/resolve').set(pub()).send({ anonymousId: 'stamp-d' });
    expect(resolved.body).toMatchObject({ trustTier: 1, user: { id: 'stamp-b' }, entitlements: null });
  });
});

describe('anonymous devices', () => {
  it('a device known only anonymously is still claimed by the user who identifies on it', async () => {
    const anonymous = await linkHints(scope(), [{ kind: 'anonymous', id: 'claim-d' }], 'self_asserted', service.clock.now());
    const now = service.clock.now();
    await seedGrants(scope(), anonymous.customerId!, [{ entitlementKey: 'bought_before_login', validUntil: null }], now);

    const res = await identify({ userId: 'claim-user', anonymousId: 'claim-d' });
    expect(res.body).toMatchObject({ serviceCustomerId: anonymous.customerId, mergePending: false });
    expect(keys((await entitlements({ userId: 'claim-user' })).body)).toEqual(['bought_before_login']);
    expect((await device('claim-d')).movedFrom).toBeUndefined();
    expect(await moves([anonymous.customerId!])).toEqual([]);
  });

  it('a user known elsewhere on an anonymous customer’s device is still a merge conflict for review', async () => {
    const own = (await identify({ userId: 'review-user', anonymousId: 'review-phone' })).body.serviceCustomerId as string;
    const anonymous = await linkHints(scope(), [{ kind: 'anonymous', id: 'review-tablet' }], 'self_asserted', service.clock.now());
    const res = await identify({ userId: 'review-user', anonymousId: 'review-tablet' });
    expect(res.body).toMatchObject({ serviceCustomerId: own, mergePending: true });
    expect((await device('review-tablet')).customerId).toBe(anonymous.customerId);
  });
});

describe('concurrency', () => {
  it('a newcomer and the owner identifying on one device at once: the newcomer ends with the device, the owner with his customer, one move journalled', async () => {
    const other = createTestService({ clock: service.clock }); // a second instance: no shared per-instance queue
    for (let round = 0; round < 3; round += 1) {
      const d = `race-d-${round}`;
      const a = `race-a-${round}`;
      const b = `race-b-${round}`;
      const ownerCustomer = await payingOwner(a, d);
      service.clock.advance(1_000);
      const [again, newcomer, againElsewhere] = await Promise.all([
        identify({ userId: a, anonymousId: d }),
        identify({ userId: b, anonymousId: d }, round % 2 === 0 ? service : other),
        identify({ userId: a, anonymousId: d }, other),
      ]);
      expect([again.status, newcomer.status, againElsewhere.status]).toEqual([200, 200, 200]);
      expect(again.body.serviceCustomerId).toBe(ownerCustomer);
      expect(againElsewhere.body.serviceCustomerId).toBe(ownerCustomer);
      const newcomerCustomer = newcomer.body.serviceCustomerId as string;
      expect(newcomerCustomer).not.toBe(ownerCustomer);
      expect(newcomer.body.mergePending).toBe(false);

      // The owner's calls never move the device back (after the move they are conflicts), so
      // the newcomer ends with it, mirrored on exactly that customer.
      expect((await device(d)).customerId).toBe(newcomerCustomer);
      expect((await customer(newcomerCustomer)).identities.map((i) => i.id)).toContain(d);
      expect((await customer(ownerCustomer)).identities.map((i) => i.id)).not.toContain(d);
      const journal = await moves([ownerCustomer, newcomerCustomer]);
      expect(journal.map((e) => [e.details!.fromCustomerId, e.details!.toCustomerId])).toEqual([[ownerCustomer, newcomerCustomer]]);

      // No entitlement crossed; each user id is on its own customer.
      expect((await entitlements({ userId: b })).body).toMatchObject({ data: [], serviceCustomerId: newcomerCustomer });
      expect(keys((await entitlements({ userId: a })).body)).toEqual(['pro']);
      expect((await customer(newcomerCustomer)).identities.filter((i) => i.kind === 'developer')).toEqual([{ kind: 'developer', id: b }]);
      expect((await customer(ownerCustomer)).identities.filter((i) => i.kind === 'developer')).toEqual([{ kind: 'developer', id: a }]);
    }
  });
});

describe('other paths', () => {
  it('event resolution follows identify: a newcomer’s events move the device to the newcomer; a known user’s late events are a conflict that moves nothing', async () => {
    const ownerCustomer = await payingOwner('events-a', 'events-d');
    await postEvents(service, project, { events: [event({ eventId: 'shared-ev-b', developerUserId: 'events-b', anonymousId: 'events-d' })] });
    await service.tasks.drain();
    const newcomerCustomer = (await storedEvent(service, project.projectId, 'shared-ev-b'))?.serviceCustomerId as string;
    expect(newcomerCustomer).toMatch(/^cdcust_/);
    expect(newcomerCustomer).not.toBe(ownerCustomer);
    expect(await device('events-d')).toMatchObject({ customerId: newcomerCustomer, movedFrom: { customerId: ownerCustomer } });
    expect((await moves([ownerCustomer, newcomerCustomer]))[0].details).toMatchObject({ surface: 'events', assurance: 'self_asserted' });
    expect((await customer(ownerCustomer)).identities.map((i) => i.id)).toEqual(['events-a']);
    expect((await entitlements({ anonymousId: 'events-d' })).body).toMatchObject({ data: [], serviceCustomerId: newcomerCustomer });

    // The newcomer's identify afterwards is the same pair: settled, no conflict.
    expect((await identify({ userId: 'events-b', anonymousId: 'events-d' })).body).toMatchObject({ serviceCustomerId: newcomerCustomer, mergePending: false });

    // The previous user's late events go to his own customer and queue a conflict; nothing moves.
    await postEvents(service, project, { events: [event({ eventId: 'shared-ev-a-late', developerUserId: 'events-a', anonymousId: 'events-d' })] });
    await service.tasks.drain();
    expect((await storedEvent(service, project.projectId, 'shared-ev-a-late'))?.serviceCustomerId).toBe(ownerCustomer);
    expect((await device('events-d')).customerId).toBe(newcomerCustomer);
    const conflicts = await scope().collection('identityConflicts').where('canonicalCustomerId', '==', ownerCustomer).get();
    expect(conflicts.docs.map((d) => d.data())).toEqual([expect.objectContaining({ status: 'open', otherCustomerIds: [newcomerCustomer] })]);
  });

  it('a verified resolve by another user on the device moves it to that user and never shows the owner’s entitlements', async () => {
    const provider = await startProvider(() => service.clock.now());
    try {
      await configureProvider(service.deps.db, project.projectId, { jwksUri: provider.jwksUri });
      const ownerCustomer = await payingOwner('resolve-a', 'resolve-d');
      const idToken = await provider.sign({ sub: 'resolve-b' });
      const res = await service.request().post('/v1/resolve').set(pub()).send({ anonymousId: 'resolve-d', userId: 'resolve-b', idToken });
      expect(res.body).toMatchObject({ trustTier: 3, user: { id: 'resolve-b' }, entitlements: [] });
      const moved = await device('resolve-d');
      expect(moved.customerId).not.toBe(ownerCustomer);
      expect(moved).toMatchObject({ assurance: 'verified', verifiedAt: service.clock.now(), movedFrom: { customerId: ownerCustomer } });
      expect((await moves([ownerCustomer, moved.customerId]))[0].details).toMatchObject({ surface: 'resolve', assurance: 'verified' });
      expect(keys((await entitlements({ userId: 'resolve-a' })).body)).toEqual(['pro']);
    } finally {
      await provider.close();
    }
  });

  it('a bulk alias row moves a newcomer’s device the same way, journalled as bulk_alias; a known user’s row is a conflict', async () => {
    const ownerCustomer = await payingOwner('bulk-a', 'bulk-d');
    const own = (await identify({ userId: 'bulk-c', anonymousId: 'bulk-c-phone' })).body.serviceCustomerId as string;
    const res = await service
      .request()
      .post('/v1/server/customers/alias')
      .set({ Authorization: `Bearer ${project.ios.test.secret}` })
      .send({ links: [{ userId: 'bulk-b', anonymousId: 'bulk-d' }, { userId: 'bulk-c', anonymousId: 'bulk-d' }] });
    const newcomerCustomer = res.body.results[0].serviceCustomerId as string;
    expect(res.body.results[0]).toEqual({ index: 0, serviceCustomerId: expect.stringMatching(/^cdcust_/), mergePending: false });
    expect(newcomerCustomer).not.toBe(ownerCustomer);
    // Rows run concurrently: the known user's row is a conflict with whichever customer holds the device.
    expect(res.body.results[1]).toEqual({ index: 1, serviceCustomerId: own, mergePending: true });
    expect(res.body.mergePending).toBe(1);
    expect((await device('bulk-d')).customerId).toBe(newcomerCustomer);
    expect((await moves([ownerCustomer, newcomerCustomer]))[0].details).toMatchObject({ surface: 'bulk_alias' });
    expect((await customer(own)).identities.map((i) => i.id)).toEqual(['bulk-c', 'bulk-c-phone']);
  });
});
