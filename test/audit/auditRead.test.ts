/**
 * Guarantees of the audit log: GET /v1/server/audit/{eventId} is secret-key only and returns
 * the spec's `audit_entry` fields; an entry of the other environment or another project is
 * unreadable (400 invalid_param_value, like an unknown id); entries are created with
 * `create()` (a second write of the same id fails instead of overwriting) and carry a TTL
 * `expiresAt` 24 months out.
 */
import { Timestamp } from 'firebase-admin/firestore';
import { appendAudit, auditExpiry, newServerEventId } from '../../functions/src/audit/append';
import { EnvScope } from '../../functions/src/store/scope';
import { describeSecuredRoute } from '../support/securitySuite';
import { createTestService, expectError, seedProject, type SeededProject, type TestService } from '../support/harness';
import { bearer, newCustomer, REASON } from '../entitlements/support';

describeSecuredRoute({ method: 'GET', path: '/v1/server/audit/srv_grant_securitysuite', key: 'secret' });

let service: TestService;
let project: SeededProject;
beforeAll(async () => {
  service = createTestService();
  project = await seedProject(service);
});

const readAudit = (eventId: string, key = project.web.test.secret) => service.request().get(`/v1/server/audit/${encodeURIComponent(eventId)}`).set(bearer(key));

async function grantAndGetEventId(): Promise<{ eventId: string; customerId: string }> {
  const customerId = await newCustomer(service, project);
  const res = await service.request().post(`/v1/server/customers/${customerId}/grant`).set(bearer(project.web.test.secret)).send({ entitlementKey: 'pro', duration: 'P30D', reason: REASON });
  return { eventId: res.headers['x-service-audit-event-id'] as string, customerId };
}

it('returns the entry of a manual grant as audit_entry with the spec and decisions.md fields', async () => {
  const { eventId, customerId } = await grantAndGetEventId();
  const now = service.clock.now();
  const res = await readAudit(eventId);
  expect(res.status).toBe(200);
  expect(res.headers['cache-control']).toBe('private, no-store');
  expect(res.body).toEqual({
    object: 'audit_entry',
    data: {
      eventId,
      rail: 'manual',
      env: 'sandbox',
      eventType: 'entitlement.granted_manually',
      projectId: project.projectId,
      customerId,
      subscriptionId: expect.stringMatching(/^grt_/),
      decision: 'applied',
      reason: REASON,
      fromState: 'inactive',
      toState: 'active',
      signatureVerified: false,
      reconciledWithProvider: false,
      rawEventReceivedAt: now,
      processedAt: now,
      expiresAt: auditExpiry(now),
      details: expect.objectContaining({ entitlementKey: 'pro', surface: 'server_api', requestId: expect.stringMatching(/^req_/) }),
    },
  });
  // Any secret key of the same project and environment reads it.
  expect((await readAudit(eventId, project.ios.test.secret)).status).toBe(200);
});

it('an entry is unreadable from the other environment or another project: 400 invalid_param_value', async () => {
  const { eventId } = await grantAndGetEventId();
  expectError(await readAudit(eventId, project.web.live.secret), 400, 'invalid_request_error', 'invalid_param_value');
  const other = await seedProject(service);
  expectError(await readAudit(eventId, other.web.test.secret), 400, 'invalid_request_error', 'invalid_param_value');
});

it('unknown or malformed event ids are 400 invalid_param_value', async () => {
  for (const id of ['srv_grant_nothing', 'evt_1', '..', '__name__', 'x'.repeat(201), 'a b']) {
    expectError(await readAudit(id), 400, 'invalid_request_error', 'invalid_param_value');
  }
});

it('appendAudit is append-only: the same event id twice fails instead of overwriting', async () => {
  const scope = new EnvScope(service.deps.db, project.projectId, 'test');
  const eventId = newServerEventId('migration');
  expect(eventId).toMatch(/^srv_migration_[A-Za-z0-9]{24}$/);
  const entry = {
    eventId,
    rail: 'manual' as const,
    eventType: 'entitlement.granted_by_migration',
    customerId: null,
    subscriptionId: null,
    decision: 'applied' as const,
    reason: 'first',
    fromState: null,
    toState: null,
    signatureVerified: false,
    reconciledWithProvider: false,
    rawEventReceivedAt: 1,
    processedAt: Date.UTC(2026, 0, 31),
  };
  await scope.runTransaction(async (tx) => {
    appendAudit(tx, scope, entry);
  });
  await expect(
    scope.runTransaction(async (tx) => {
      appendAudit(tx, scope, { ...entry, reason: 'second' });
    }),
  ).rejects.toThrow();
  const stored = (await scope.doc('audit', eventId).get()).data()!;
  expect(stored.reason).toBe('first');
  expect(stored.projectId).toBe(project.projectId);
  expect(stored.env).toBe('test');
  expect(stored.expiresAt).toBeInstanceOf(Timestamp);
  expect((stored.expiresAt as Timestamp).toMillis()).toBe(Date.UTC(2028, 0, 31));
});

describe('auditExpiry', () => {
  it('is 24 calendar months later, clamped to the end of a shorter month', () => {
    expect(auditExpiry(Date.UTC(2026, 2, 15, 10, 30, 5, 7))).toBe(Date.UTC(2028, 2, 15, 10, 30, 5, 7));
    expect(auditExpiry(Date.UTC(2026, 1, 28))).toBe(Date.UTC(2028, 1, 28));
    expect(auditExpiry(Date.UTC(2028, 1, 29))).toBe(Date.UTC(2030, 1, 28));
    expect(auditExpiry(Date.UTC(2026, 11, 31, 23, 59))).toBe(Date.UTC(2028, 11, 31, 23, 59));
  });
});
