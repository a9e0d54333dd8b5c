/**
 * Guarantees of `applyGrantChanges` (entitlements/writer.ts), the one writer of grants,
 * projections and entitlement change records: a change record is appended per key whose public
 * state (presence, end, source) changed — never for a change that leaves it as it was (a losing
 * grant revoked) and never for a no-op, which writes nothing; records carry the public shapes
 * before and after, the cause and the customer's next sequence number, in the change's own
 * transaction; a merge records both sides (the merged customer's keys vanish); a grant of a
 * customer whose projection the transaction did not read is refused.
 */
import type { EntitlementCause, EntitlementChange } from '../../functions/src/entitlements/changeModel';
import { ENTITLEMENT_CHANGES } from '../../functions/src/entitlements/changeModel';
import type { GrantRecord, ProjectionDoc } from '../../functions/src/entitlements/model';
import { projectionRef, readCustomerGrants } from '../../functions/src/entitlements/projection';
import { applyGrantChanges, type AppliedChanges } from '../../functions/src/entitlements/writer';
import { DAY } from '../../functions/src/clock';
import type { EnvScope } from '../../functions/src/store/scope';
import { createTestService, seedProject, type SeededProject, type TestService } from '../support/harness';
import { newCustomer, scopeOf } from './support';

let service: TestService;
let project: SeededProject;
let scope: EnvScope;
beforeAll(async () => {
  service = createTestService();
  project = await seedProject(service);
  scope = scopeOf(service, project);
});

const CAUSE: EntitlementCause = { kind: 'operator', rail: 'manual', auditEventId: 'srv_grant_writer_suite', eventType: 'entitlement.granted_manually' };

function grant(customerId: string, grantId: string, fields: Partial<GrantRecord> = {}): GrantRecord {
  const now = service.clock.now();
  return {
    grantId,
    customerId,
    entitlementKey: 'pro',
    source: { rail: 'manual', productId: 'manual', subscriptionId: grantId },
    validUntil: null,
    revokedAt: null,
    createdAt: now,
    updatedAt: now,
    ...fields,
  };
}

/** One transaction that reads the customers' projections and grants, then applies `changes`. */
async function apply(customerIds: string[], changes: (grants: GrantRecord[]) => GrantRecord[]): Promise<AppliedChanges> {
  return scope.runTransaction(async (tx) => {
    const projections = await tx.getAll(...customerIds.map((id) => projectionRef(scope, id)));
    const grants = await Promise.all(customerIds.map((id) => readCustomerGrants(tx, scope, id)));
    const customers = customerIds.map((customerId, i) => ({ customerId, projection: projections[i], grants: grants[i] }));
    return applyGrantChanges(tx, scope, { customers, changes: changes(grants.flat()), cause: CAUSE, now: service.clock.now(), webhookDirectory: null });
  });
}

async function recordsOf(customerId: string): Promise<EntitlementChange[]> {
  const snapshot = await scope.collection(ENTITLEMENT_CHANGES).where('customerId', '==', customerId).get();
  return snapshot.docs.map((d) => d.data() as EntitlementChange).sort((a, b) => a.sequence - b.sequence);
}

const projectionOf = async (customerId: string) => (await projectionRef(scope, customerId).get()).data() as ProjectionDoc | undefined;

it('records a new key with its public shape after, the cause and sequence 1', async () => {
  const customerId = await newCustomer(service, project);
  const applied = await apply([customerId], () => [grant(customerId, `g_${customerId}_life`)]);
  const records = await recordsOf(customerId);
  expect(applied.records).toEqual(records);
  expect(records).toEqual([
    expect.objectContaining({
      changeId: `${customerId}:000000000001`,
      customerId,
      key: 'pro',
      sequence: 1,
      before: null,
      after: expect.objectContaining({ object: 'entitlement', key: 'pro', isActive: true, validUntil: null, source: { rail: 'manual', productId: 'manual', subscriptionId: `g_${customerId}_life` } }),
      cause: CAUSE,
      changedAt: service.clock.now(),
      projectId: project.projectId,
      env: 'test',
    }),
  ]);
  expect((await projectionOf(customerId))!.changeSequence).toBe(1);
});

it('appends nothing when the public state stays (a losing grant revoked), and a no-op writes nothing', async () => {
  const customerId = await newCustomer(service, project);
  const now = service.clock.now();
  await apply([customerId], () => [grant(customerId, `g_${customerId}_life`), grant(customerId, `g_${customerId}_dated`, { validUntil: now + 30 * DAY })]);
  expect((await recordsOf(customerId)).map((r) => r.sequence)).toEqual([1]);

  service.clock.advance(1000);
  const losing = (grants: GrantRecord[]) => grants.filter((g) => g.grantId.endsWith('_dated')).map((g) => ({ ...g, revokedAt: service.clock.now(), updatedAt: service.clock.now() }));
  const revoked = await apply([customerId], losing);
  expect(revoked.records).toEqual([]);
  expect((await recordsOf(customerId)).length).toBe(1);
  const afterRevoke = await projectionRef(scope, customerId).get();
  expect((afterRevoke.data() as ProjectionDoc).changeSequence).toBe(1);

  const none = await apply([customerId], () => []);
  expect(none.records).toEqual([]);
  const untouched = await projectionRef(scope, customerId).get();
  expect(untouched.updateTime!.isEqual(afterRevoke.updateTime!)).toBe(true);
});

it('records the end moving and the key going, numbering on from the last record', async () => {
  const customerId = await newCustomer(service, project);
  const now = service.clock.now();
  await apply([customerId], () => [grant(customerId, `g_${customerId}_a`, { validUntil: now + DAY })]);
  await apply([customerId], (grants) => grants.map((g) => ({ ...g, validUntil: now + 2 * DAY, updatedAt: now })));
  await apply([customerId], (grants) => grants.map((g) => ({ ...g, revokedAt: now, updatedAt: now })));
  const records = await recordsOf(customerId);
  expect(records.map((r) => [r.sequence, r.before?.validUntil ?? null, r.after?.validUntil ?? null])).toEqual([
    [1, null, Math.floor((now + DAY) / 1000)],
    [2, Math.floor((now + DAY) / 1000), Math.floor((now + 2 * DAY) / 1000)],
    [3, Math.floor((now + 2 * DAY) / 1000), null],
  ]);
  expect(records[2].after).toBeNull();
  expect((await projectionOf(customerId))!.entitlements).toEqual({});
});

it('records both sides of a merge: the merged customer’s keys vanish, the canonical customer’s appear', async () => {
  const canonical = await newCustomer(service, project);
  const merged = await newCustomer(service, project);
  await apply([merged], () => [grant(merged, `g_${merged}_team`, { entitlementKey: 'team' })]);
  await apply([canonical, merged], (grants) => grants.map((g) => ({ ...g, customerId: canonical })));
  expect((await recordsOf(merged)).map((r) => [r.sequence, r.key, r.before?.key ?? null, r.after])).toEqual([
    [1, 'team', null, expect.objectContaining({ key: 'team' })],
    [2, 'team', 'team', null],
  ]);
  expect((await recordsOf(canonical)).map((r) => [r.sequence, r.key, r.before])).toEqual([[1, 'team', null]]);
  expect(Object.keys((await projectionOf(merged))!.entitlements)).toEqual([]);
  expect(Object.keys((await projectionOf(canonical))!.entitlements)).toEqual(['team']);
});

it('refuses a grant of a customer whose projection the transaction did not read', async () => {
  const customerId = await newCustomer(service, project);
  const other = await newCustomer(service, project);
  await expect(apply([customerId], () => [grant(other, `g_${other}_x`)])).rejects.toThrow(/whose projection was not read/);
  expect(await recordsOf(other)).toEqual([]);
});
