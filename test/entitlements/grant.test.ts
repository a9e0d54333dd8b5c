/**
 * Guarantees of POST /v1/server/customers/{id}/grant: secret key only; body rules; unknown or
 * malformed customers are 400 invalid_customer; the grant, the projection and a
 * `srv_grant_…` audit entry commit together; a second grant extends to the later end
 * (lifetime wins); concurrent grants converge on one grant with every attempt audited; a test
 * key's grant is invisible to live keys; the projection always equals a recomputation.
 */
import { DAY } from '../../functions/src/clock';
import { auditExpiry } from '../../functions/src/audit/append';
import type { AuditEntry } from '../../functions/src/audit/model';
import type { GrantRecord, ProjectionDoc } from '../../functions/src/entitlements/model';
import { projectEntitlements } from '../../functions/src/entitlements/projection';
import { describeSecuredRoute } from '../support/securitySuite';
import { createTestService, expectError, seedProject, type SeededProject, type TestService } from '../support/harness';
import { bearer, newCustomer, REASON, scopeOf, seedRailGrant } from './support';

describeSecuredRoute({
  method: 'POST',
  path: '/v1/server/customers/cdcust_securitysuite/grant',
  key: 'secret',
  body: { entitlementKey: 'pro', duration: 'P30D', reason: REASON },
});

let service: TestService;
let project: SeededProject;
beforeAll(async () => {
  service = createTestService();
  project = await seedProject(service);
});

const grant = (customerId: string, body: Record<string, unknown>, key = project.web.test.secret) =>
  service.request().post(`/v1/server/customers/${customerId}/grant`).set(bearer(key)).send(body);

async function grantsOf(customerId: string, env: 'test' | 'live' = 'test'): Promise<GrantRecord[]> {
  const snapshot = await scopeOf(service, project, env).collection('grants').where('customerId', '==', customerId).get();
  return snapshot.docs.map((d) => d.data() as GrantRecord);
}

async function projectionOf(customerId: string, env: 'test' | 'live' = 'test'): Promise<ProjectionDoc | null> {
  const snapshot = await scopeOf(service, project, env).doc('projections', customerId).get();
  return snapshot.exists ? (snapshot.data() as ProjectionDoc) : null;
}

async function auditOf(eventId: string, env: 'test' | 'live' = 'test'): Promise<AuditEntry | null> {
  const snapshot = await scopeOf(service, project, env).doc('audit', eventId).get();
  return snapshot.exists ? (snapshot.data() as AuditEntry) : null;
}

async function expectProjectionMatchesGrants(customerId: string): Promise<void> {
  const stored = await projectionOf(customerId);
  expect(stored?.entitlements).toEqual(projectEntitlements(await grantsOf(customerId), service.clock.now() + 365 * DAY));
}

describe('validation', () => {
  it('rejects a bad entitlement key, duration or reason with 400 invalid_param_value', async () => {
    const customerId = await newCustomer(service, project);
    const cases: Record<string, unknown>[] = [
      { duration: 'P30D', reason: REASON },
      { entitlementKey: 'Pro', duration: 'P30D', reason: REASON },
      { entitlementKey: 'p', duration: 'P30D', reason: REASON },
      { entitlementKey: 'a'.repeat(41), duration: 'P30D', reason: REASON },
      { entitlementKey: 'pro-plan', duration: 'P30D', reason: REASON },
      { entitlementKey: 'pro', duration: 'P7D', reason: REASON },
      { entitlementKey: 'pro', reason: REASON },
      { entitlementKey: 'pro', duration: 'P30D' },
      { entitlementKey: 'pro', duration: 'P30D', reason: 'too short' },
      { entitlementKey: 'pro', duration: 'P30D', reason: 'x'.repeat(501) },
      { entitlementKey: 'pro', duration: 'P30D', reason: 42 },
    ];
    for (const body of cases) expectError(await grant(customerId, body), 400, 'invalid_request_error', 'invalid_param_value');
    expect(await grantsOf(customerId)).toEqual([]);
  });

  it('accepts the boundaries: a 2- and a 40-character key, a 20- and a 500-character reason', async () => {
    const customerId = await newCustomer(service, project);
    expect((await grant(customerId, { entitlementKey: 'ab', duration: 'P30D', reason: 'r'.repeat(20) })).status).toBe(200);
    expect((await grant(customerId, { entitlementKey: 'a'.repeat(40), duration: 'P30D', reason: 'r'.repeat(500) })).status).toBe(200);
  });

  it('answers 400 invalid_customer for an id without cdcust_ or a customer unknown in this project and environment', async () => {
    const body = { entitlementKey: 'pro', duration: 'P30D', reason: REASON };
    expectError(await grant('cus_123', body), 400, 'invalid_request_error', 'invalid_customer');
    expectError(await grant('cdcust_doesnotexist', body), 400, 'invalid_request_error', 'invalid_customer');
    const liveCustomer = await newCustomer(service, project, 'live');
    expectError(await grant(liveCustomer, body), 400, 'invalid_request_error', 'invalid_customer');
    const other = await seedProject(service);
    expectError(await grant(liveCustomer, body, other.web.live.secret), 400, 'invalid_request_error', 'invalid_customer');
    expect(await grantsOf(liveCustomer, 'live')).toEqual([]);
  });

  it('rejects an envelope environment that differs from the key: 403 env_mismatch', async () => {
    const customerId = await newCustomer(service, project);
    const res = await grant(customerId, { entitlementKey: 'pro', duration: 'P30D', reason: REASON, environment: 'production' });
    expectError(res, 403, 'permission_error', 'env_mismatch');
  });
});

describe('granting', () => {
  it('returns the entitlement_mutation and commits grant, projection and audit entry together', async () => {
    const customerId = await newCustomer(service, project);
    const now = service.clock.now();
    const res = await grant(customerId, { entitlementKey: 'pro', duration: 'P30D', reason: REASON });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const [stored] = await grantsOf(customerId);
    expect(res.body).toEqual({
      object: 'entitlement_mutation',
      action: 'grant',
      serviceCustomerId: customerId,
      entitlement: {
        object: 'entitlement',
        key: 'pro',
        isActive: true,
        validUntil: Math.floor((now + 30 * DAY) / 1000),
        source: { rail: 'manual', productId: 'manual', subscriptionId: stored.grantId },
        updatedAt: Math.floor(now / 1000),
      },
      env: 'sandbox',
    });
    expect(res.headers['x-service-audit-event-id']).toMatch(/^srv_grant_[A-Za-z0-9]{24}$/);
    const audit = await auditOf(res.headers['x-service-audit-event-id']);
    expect(audit).toMatchObject({
      eventId: res.headers['x-service-audit-event-id'],
      rail: 'manual',
      env: 'test',
      projectId: project.projectId,
      eventType: 'entitlement.granted_manually',
      customerId,
      decision: 'applied',
      reason: REASON,
      subscriptionId: stored.grantId,
      processedAt: now,
      details: expect.objectContaining({ surface: 'server_api', entitlementKey: 'pro', duration: 'P30D', keyId: project.web.test.secretId }),
    });
    expect((audit!.expiresAt as { toMillis(): number }).toMillis()).toBe(auditExpiry(now));
    expect((await projectionOf(customerId))!.entitlements.pro).toEqual({
      key: 'pro',
      validUntil: now + 30 * DAY,
      source: { rail: 'manual', productId: 'manual', subscriptionId: stored.grantId },
      updatedAt: now,
    });
    // The key is registered in the catalog.
    expect((await scopeOf(service, project).doc('catalogEntitlements', 'pro').get()).exists).toBe(true);
  });

  it('extends an active manual grant to the later end, audited; a shorter grant changes nothing and is audited as no_op', async () => {
    const customerId = await newCustomer(service, project);
    const start = service.clock.now();
    await grant(customerId, { entitlementKey: 'pro', duration: 'P30D', reason: REASON });
    service.clock.advance(DAY);
    const longer = await grant(customerId, { entitlementKey: 'pro', duration: 'P90D', reason: REASON });
    expect(longer.body.entitlement.validUntil).toBe(Math.floor((start + DAY + 90 * DAY) / 1000));
    expect((await auditOf(longer.headers['x-service-audit-event-id']))!.decision).toBe('applied');
    const shorter = await grant(customerId, { entitlementKey: 'pro', duration: 'P30D', reason: REASON });
    expect(shorter.status).toBe(200);
    expect(shorter.body.entitlement.validUntil).toBe(Math.floor((start + DAY + 90 * DAY) / 1000));
    expect((await auditOf(shorter.headers['x-service-audit-event-id']))!.decision).toBe('no_op');
    const grants = await grantsOf(customerId);
    expect(grants).toHaveLength(1);
    await expectProjectionMatchesGrants(customerId);
  });

  it('lifetime wins over any date, and a dated grant never shortens a lifetime one', async () => {
    const customerId = await newCustomer(service, project);
    await grant(customerId, { entitlementKey: 'pro', duration: 'P1Y', reason: REASON });
    const lifetime = await grant(customerId, { entitlementKey: 'pro', duration: 'lifetime', reason: REASON });
    expect(lifetime.body.entitlement.validUntil).toBeNull();
    const after = await grant(customerId, { entitlementKey: 'pro', duration: 'P1Y', reason: REASON });
    expect(after.body.entitlement.validUntil).toBeNull();
    expect((await projectionOf(customerId))!.entitlements.pro.validUntil).toBeNull();
  });

  it('P1Y is one calendar year', async () => {
    const customerId = await newCustomer(service, project);
    const now = service.clock.now();
    const res = await grant(customerId, { entitlementKey: 'yearly', duration: 'P1Y', reason: REASON });
    const expected = new Date(now);
    expected.setUTCFullYear(expected.getUTCFullYear() + 1);
    expect(res.body.entitlement.validUntil).toBe(Math.floor(expected.getTime() / 1000));
  });

  it('grants anew once the previous manual grant has lapsed', async () => {
    const customerId = await newCustomer(service, project);
    const first = await grant(customerId, { entitlementKey: 'trial', duration: 'P30D', reason: REASON });
    service.clock.advance(31 * DAY);
    const second = await grant(customerId, { entitlementKey: 'trial', duration: 'P30D', reason: REASON });
    expect(second.body.entitlement.source.subscriptionId).not.toBe(first.body.entitlement.source.subscriptionId);
    expect(second.body.entitlement.isActive).toBe(true);
    expect(await grantsOf(customerId)).toHaveLength(2);
    await expectProjectionMatchesGrants(customerId);
  });

  it('keeps a rail grant of the same key beside the manual one; the later end decides the projection', async () => {
    const customerId = await newCustomer(service, project);
    await seedRailGrant(service, project, customerId, 'pro', { validUntil: service.clock.now() + 10 * DAY });
    await grant(customerId, { entitlementKey: 'pro', duration: 'P30D', reason: REASON });
    expect((await projectionOf(customerId))!.entitlements.pro.source.rail).toBe('manual');
    await expectProjectionMatchesGrants(customerId);
  });

  it('concurrent grants of one key to one customer converge: one grant, one consistent end, every attempt audited', async () => {
    const customerId = await newCustomer(service, project);
    // Register the key first (through another customer) so the only shared documents are this
    // customer's: the projection and grants must serialise the attempts on their own.
    await grant(await newCustomer(service, project), { entitlementKey: 'team', duration: 'P30D', reason: REASON });
    const durations = ['P30D', 'P90D', 'P30D', 'P1Y', 'P90D'];
    const results = await Promise.all(durations.map((duration) => grant(customerId, { entitlementKey: 'team', duration, reason: REASON })));
    for (const res of results) expect(res.status).toBe(200);
    const grants = await grantsOf(customerId);
    expect(grants).toHaveLength(1);
    const end = new Date(service.clock.now());
    end.setUTCFullYear(end.getUTCFullYear() + 1);
    expect(grants[0].validUntil).toBe(end.getTime());
    const eventIds = new Set(results.map((r) => r.headers['x-service-audit-event-id']));
    expect(eventIds.size).toBe(durations.length);
    const audits = await scopeOf(service, project).collection('audit').where('customerId', '==', customerId).get();
    expect(audits.size).toBe(durations.length);
    expect(audits.docs.every((d) => eventIds.has(d.id))).toBe(true);
    expect(audits.docs.filter((d) => (d.data() as AuditEntry).decision === 'applied').length).toBeGreaterThanOrEqual(1);
    await expectProjectionMatchesGrants(customerId);
  });
});

describe('partitioning', () => {
  it('a grant made with a test key is invisible to live keys and to other projects', async () => {
    const customerId = await newCustomer(service, project);
    await grant(customerId, { entitlementKey: 'pro', duration: 'lifetime', reason: REASON });
    const testRead = await service.request().get(`/v1/server/customers/${customerId}/entitlements`).set(bearer(project.ios.test.secret));
    expect(testRead.body.data.map((e: { key: string }) => e.key)).toEqual(['pro']);
    const liveRead = await service.request().get(`/v1/server/customers/${customerId}/entitlements`).set(bearer(project.ios.live.secret));
    expectError(liveRead, 400, 'invalid_request_error', 'invalid_customer');
    expect(await projectionOf(customerId, 'live')).toBeNull();
    expect(await grantsOf(customerId, 'live')).toEqual([]);
  });
});
