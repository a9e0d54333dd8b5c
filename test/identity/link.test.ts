/**
 * Guarantees of the identity link core (identity/repository.ts, used by identify and by the
 * events' out-of-band resolution): one customer per new identifier however many calls race,
 * unknown hints link to the known customer, and identifiers of different customers are never
 * merged silently (developer-user-id customer canonical, conflict queued).
 */
import { conflictRef, type ConflictRecord } from '../../functions/src/identity/conflictModel';
import { linkAcrossInstances } from '../../functions/src/identity/link';
import type { CustomerRecord, IdentityIndexEntry } from '../../functions/src/customers/model';
import { linkHints } from '../../functions/src/identity/repository';
import { findCustomerIdByIdentity } from '../../functions/src/customers/lookup';
import { customerRef, identityRef } from '../../functions/src/customers/refs';
import { EnvScope } from '../../functions/src/store/scope';
import { createTestService, seedProject, type TestService } from '../support/harness';

let service: TestService;
let scope: EnvScope;

beforeAll(async () => {
  service = createTestService();
  const project = await seedProject(service);
  scope = new EnvScope(service.deps.db, project.projectId, 'test');
});

const now = () => service.clock.now();

describe('linkHints', () => {
  it('20 parallel calls for one new userId create exactly one customer', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => linkHints(scope, [{ kind: 'developer', id: 'race-user' }, { kind: 'anonymous', id: `race-anon-${i}` }], 'self_asserted', now())),
    );
    const ids = new Set(results.map((r) => r.customerId));
    expect(ids.size).toBe(1);
    const [customerId] = [...ids];
    expect(customerId).toMatch(/^cdcust_[A-Za-z0-9]+$/);
    expect(results.every((r) => r.mergePending === false)).toBe(true);
    const customer = (await customerRef(scope, customerId!).get()).data() as CustomerRecord;
    expect(customer.identities).toHaveLength(21);
    for (let i = 0; i < 20; i += 1) expect(await findCustomerIdByIdentity(scope, 'anonymous', `race-anon-${i}`)).toBe(customerId);
  });

  it('racing instances (the transaction alone, no per-instance queue) still create exactly one customer', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        linkAcrossInstances(scope, { hints: [{ kind: 'developer', id: 'cross-race-user' }, { kind: 'anonymous', id: `cross-race-anon-${i}` }], assurance: 'self_asserted', now: now() }),
      ),
    );
    const ids = new Set(results.map((r) => r.customerId));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const customer = (await customerRef(scope, [...ids][0]!).get()).data() as CustomerRecord;
    expect(customer.identities).toHaveLength(11);
  }, 60_000);

  it('links an unknown hint to the known customer and is idempotent on repeat', async () => {
    const first = await linkHints(scope, [{ kind: 'developer', id: 'u-link' }, { kind: 'anonymous', id: 'a-link-1' }], 'self_asserted', now());
    const second = await linkHints(scope, [{ kind: 'anonymous', id: 'a-link-2' }, { kind: 'developer', id: 'u-link' }], 'self_asserted', now());
    const again = await linkHints(scope, [{ kind: 'anonymous', id: 'a-link-2' }, { kind: 'developer', id: 'u-link' }], 'self_asserted', now());
    expect(first.created).toBe(true);
    expect(second).toEqual({ customerId: first.customerId, mergePending: false, created: false });
    expect(again).toEqual(second);
    const entry = (await identityRef(scope, 'anonymous', 'a-link-2').get()).data() as IdentityIndexEntry;
    expect(entry).toMatchObject({ customerId: first.customerId, assurance: 'self_asserted' });
  });

  it('returns the developer customer as canonical and queues a conflict when hints resolve to different customers', async () => {
    const byUser = await linkHints(scope, [{ kind: 'developer', id: 'u-conflict' }], 'self_asserted', now());
    const byDevice = await linkHints(scope, [{ kind: 'anonymous', id: 'a-conflict' }], 'self_asserted', now());
    expect(byUser.customerId).not.toBe(byDevice.customerId);
    const result = await linkHints(scope, [{ kind: 'anonymous', id: 'a-conflict' }, { kind: 'developer', id: 'u-conflict' }, { kind: 'anonymous', id: 'a-new' }], 'self_asserted', now());
    expect(result).toEqual({ customerId: byUser.customerId, mergePending: true, created: false });
    // nothing merged: the device still belongs to its own customer; the new hint went to the canonical one
    expect(await findCustomerIdByIdentity(scope, 'anonymous', 'a-conflict')).toBe(byDevice.customerId);
    expect(await findCustomerIdByIdentity(scope, 'anonymous', 'a-new')).toBe(byUser.customerId);
    const conflicts = await scope.collection('identityConflicts').where('canonicalCustomerId', '==', byUser.customerId).get();
    expect(conflicts.size).toBe(1);
    const record = conflicts.docs[0].data() as ConflictRecord;
    expect(record).toMatchObject({ status: 'open', otherCustomerIds: [byDevice.customerId] });
    // a repeat queues no second conflict
    await linkHints(scope, [{ kind: 'developer', id: 'u-conflict' }, { kind: 'anonymous', id: 'a-conflict' }], 'self_asserted', now());
    expect((await conflictRef(scope, record.conflictId).get()).exists).toBe(true);
    expect((await scope.collection('identityConflicts').where('canonicalCustomerId', '==', byUser.customerId).get()).size).toBe(1);
  });

  it('returns null without hints and reads unknown identifiers as null', async () => {
    expect(await linkHints(scope, [], 'self_asserted', now())).toEqual({ customerId: null, mergePending: false, created: false });
    expect(await findCustomerIdByIdentity(scope, 'developer', 'nobody')).toBeNull();
  });
});
