/**
 * Guarantees of POST /v1/server/customers/{id}/revoke: only an active manual grant can be
 * revoked (rail-derived → 400 telling to cancel or refund on the rail; already revoked, expired
 * or never granted → 400); `reason` is required and at most 500 characters; the revoke, the
 * projection and an `entitlement.revoked_manually` audit entry commit together; a rail grant of
 * the same key stays active when the manual one is revoked.
 */
import { DAY } from '../../functions/src/clock';
import type { AuditEntry } from '../../functions/src/audit/model';
import type { GrantRecord, ProjectionDoc } from '../../functions/src/entitlements/model';
import { projectEntitlements } from '../../functions/src/entitlements/projection';
import { describeSecuredRoute } from '../support/securitySuite';
import { createTestService, expectError, seedProject, type SeededProject, type TestService } from '../support/harness';
import { bearer, newCustomer, REASON, scopeOf, seedRailGrant } from './support';

describeSecuredRoute({
  method: 'POST',
  path: '/v1/server/customers/cdcust_securitysuite/revoke',
  key: 'secret',
  body: { entitlementKey: 'pro', reason: 'no longer needed' },
});

let service: TestService;
let project: SeededProject;
beforeAll(async () => {
  service = createTestService();
  project = await seedProject(service);
});

const post = (customerId: string, action: 'grant' | 'revoke', body: Record<string, unknown>) =>
  service.request().post(`/v1/server/customers/${customerId}/${action}`).set(bearer(project.web.test.secret)).send(body);
const read = (customerId: string) => service.request().get(`/v1/server/customers/${customerId}/entitlements`).set(bearer(project.web.test.secret));

async function grantsOf(customerId: string): Promise<GrantRecord[]> {
  const snapshot = await scopeOf(service, project).collection('grants').where('customerId', '==', customerId).get();
  return snapshot.docs.map((d) => d.data() as GrantRecord);
}

async function expectProjectionMatchesGrants(customerId: string): Promise<void> {
  const stored = (await scopeOf(service, project).doc('projections', customerId).get()).data() as ProjectionDoc;
  expect(stored.entitlements).toEqual(projectEntitlements(await grantsOf(customerId), 0));
}

it('revokes an active manual grant: entitlement_mutation with isActive false, audited in the same transaction', async () => {
  const customerId = await newCustomer(service, project);
  const granted = await post(customerId, 'grant', { entitlementKey: 'pro', duration: 'lifetime', reason: REASON });
  service.clock.advance(1000);
  const now = service.clock.now();
  const res = await post(customerId, 'revoke', { entitlementKey: 'pro', reason: 'refund requested' });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    object: 'entitlement_mutation',
    action: 'revoke',
    serviceCustomerId: customerId,
    entitlement: {
      object: 'entitlement',
      key: 'pro',
      isActive: false,
      validUntil: Math.floor(now / 1000),
      source: granted.body.entitlement.source,
      updatedAt: Math.floor(now / 1000),
    },
    env: 'sandbox',
  });
  expect(res.headers['x-service-audit-event-id']).toMatch(/^srv_revoke_[A-Za-z0-9]{24}$/);
  const audit = (await scopeOf(service, project).doc('audit', res.headers['x-service-audit-event-id']).get()).data() as AuditEntry;
  expect(audit).toMatchObject({ eventType: 'entitlement.revoked_manually', decision: 'applied', reason: 'refund requested', rail: 'manual', customerId, fromState: 'active', toState: 'revoked' });
  expect((await read(customerId)).body.data).toEqual([]);
  const [stored] = await grantsOf(customerId);
  expect(stored.revokedAt).toBe(now);
  await expectProjectionMatchesGrants(customerId);
});

it('revoking again is 400 invalid_param_value and writes nothing', async () => {
  const customerId = await newCustomer(service, project);
  await post(customerId, 'grant', { entitlementKey: 'pro', duration: 'P30D', reason: REASON });
  await post(customerId, 'revoke', { entitlementKey: 'pro', reason: 'first' });
  const audits = async () => (await scopeOf(service, project).collection('audit').where('customerId', '==', customerId).get()).size;
  const before = await audits();
  const again = await post(customerId, 'revoke', { entitlementKey: 'pro', reason: 'second' });
  expectError(again, 400, 'invalid_request_error', 'invalid_param_value');
  expect(again.body.error.message).toContain('already revoked');
  expect(await audits()).toBe(before);
});

it('a rail-derived entitlement cannot be revoked: 400 naming the rail and telling to cancel or refund there', async () => {
  const customerId = await newCustomer(service, project);
  await seedRailGrant(service, project, customerId, 'pro', { rail: 'apple' });
  const res = await post(customerId, 'revoke', { entitlementKey: 'pro', reason: 'please' });
  expectError(res, 400, 'invalid_request_error', 'invalid_param_value');
  expect(res.body.error.message).toMatch(/apple rail/);
  expect(res.body.error.message).toMatch(/cancel or refund/);
  expect((await read(customerId)).body.data[0]).toMatchObject({ key: 'pro', isActive: true, source: { rail: 'apple' } });
});

it('revoking a manual grant leaves a rail grant of the same key active', async () => {
  const customerId = await newCustomer(service, project);
  const rail = await seedRailGrant(service, project, customerId, 'pro', { rail: 'stripe', validUntil: service.clock.now() + 5 * DAY });
  await post(customerId, 'grant', { entitlementKey: 'pro', duration: 'P90D', reason: REASON });
  expect((await read(customerId)).body.data[0].source.rail).toBe('manual');
  const res = await post(customerId, 'revoke', { entitlementKey: 'pro', reason: 'manual one no longer needed' });
  expect(res.status).toBe(200);
  expect(res.body.entitlement.isActive).toBe(false);
  const after = (await read(customerId)).body.data;
  expect(after).toHaveLength(1);
  expect(after[0]).toMatchObject({ key: 'pro', isActive: true, source: { rail: 'stripe', subscriptionId: rail.source.subscriptionId } });
  await expectProjectionMatchesGrants(customerId);
});

it('never granted, or expired: 400 invalid_param_value', async () => {
  const customerId = await newCustomer(service, project);
  const never = await post(customerId, 'revoke', { entitlementKey: 'pro', reason: 'why not' });
  expectError(never, 400, 'invalid_request_error', 'invalid_param_value');
  expect(never.body.error.message).toContain('no manual grant');
  await post(customerId, 'grant', { entitlementKey: 'short', duration: 'P30D', reason: REASON });
  service.clock.advance(31 * DAY);
  const expired = await post(customerId, 'revoke', { entitlementKey: 'short', reason: 'late' });
  expectError(expired, 400, 'invalid_request_error', 'invalid_param_value');
  expect(expired.body.error.message).toContain('expired');
});

it('requires a reason of at most 500 characters and a valid key; unknown customers are invalid_customer', async () => {
  const customerId = await newCustomer(service, project);
  await post(customerId, 'grant', { entitlementKey: 'pro', duration: 'P30D', reason: REASON });
  for (const body of [{ entitlementKey: 'pro' }, { entitlementKey: 'pro', reason: '' }, { entitlementKey: 'pro', reason: '   ' }, { entitlementKey: 'pro', reason: 'x'.repeat(501) }, { entitlementKey: 'P', reason: 'ok' }, { reason: 'ok' }]) {
    expectError(await post(customerId, 'revoke', body), 400, 'invalid_request_error', 'invalid_param_value');
  }
  expect((await post(customerId, 'revoke', { entitlementKey: 'pro', reason: 'x'.repeat(500) })).status).toBe(200);
  expectError(await post('user_1', 'revoke', { entitlementKey: 'pro', reason: 'ok' }), 400, 'invalid_request_error', 'invalid_customer');
  expectError(await post('cdcust_unknown', 'revoke', { entitlementKey: 'pro', reason: 'ok' }), 400, 'invalid_request_error', 'invalid_customer');
});

it('a grant after a revoke is a fresh grant; the revoked one stays revoked', async () => {
  const customerId = await newCustomer(service, project);
  await post(customerId, 'grant', { entitlementKey: 'pro', duration: 'P30D', reason: REASON });
  await post(customerId, 'revoke', { entitlementKey: 'pro', reason: 'mistake' });
  const again = await post(customerId, 'grant', { entitlementKey: 'pro', duration: 'P30D', reason: REASON });
  expect(again.body.entitlement.isActive).toBe(true);
  const grants = await grantsOf(customerId);
  expect(grants.filter((g) => g.revokedAt !== null)).toHaveLength(1);
  expect(grants.filter((g) => g.revokedAt === null)).toHaveLength(1);
  expect((await read(customerId)).body.data).toHaveLength(1);
  await expectProjectionMatchesGrants(customerId);
});
