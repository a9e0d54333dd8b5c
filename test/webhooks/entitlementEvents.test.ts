/**
 * Guarantees of the classification of entitlement changes into webhook events and of their ids
 * (webhooks/entitlementEvents.ts, eventIds.ts), as pure functions: each change maps to exactly
 * one type or to none by the documented rules (granted, renewed when the end moves later,
 * revoked / refunded by the cause, expired, nothing for a change a receiver cannot act on), and
 * the event id is a function of the partition and the change alone.
 */
import type { EntitlementCause, EntitlementChange } from '../../functions/src/entitlements/changeModel';
import type { PublicEntitlement } from '../../functions/src/entitlements/model';
import { webhookEventId } from '../../functions/src/webhooks/eventIds';
import { classifyEntitlementChange, entitlementEventRecord } from '../../functions/src/entitlements/webhookEvents';

const NOW = Date.UTC(2026, 5, 1);
const S = (ms: number) => Math.floor(ms / 1000);
const DAY = 86_400_000;

function shape(fields: Partial<PublicEntitlement> = {}): PublicEntitlement {
  return { object: 'entitlement', key: 'pro', isActive: true, validUntil: S(NOW + 30 * DAY), source: { rail: 'manual', productId: 'manual', subscriptionId: 'grt_1' }, updatedAt: S(NOW), ...fields };
}
const grantCause: EntitlementCause = { kind: 'operator', rail: 'manual', auditEventId: 'srv_grant_x', eventType: 'entitlement.granted_manually' };
const revokeCause: EntitlementCause = { kind: 'operator', rail: 'manual', auditEventId: 'srv_revoke_x', eventType: 'entitlement.revoked_manually', takenBack: 'revoked' };
const railCause = (takenBack?: 'refunded' | 'revoked'): EntitlementCause => ({ kind: 'rail', rail: 'stripe', auditEventId: 'evt_stripe', eventType: 'stripe.charge.refunded', ...(takenBack ? { takenBack } : {}) });
const mergeCause: EntitlementCause = { kind: 'operator', rail: 'manual', auditEventId: 'srv_merge_x', eventType: 'customer.merged' };
const expiryCause: EntitlementCause = { kind: 'expiry', rail: 'manual', auditEventId: 'srv_expiry_x', eventType: 'entitlement.expired' };

const classify = (before: PublicEntitlement | null, after: PublicEntitlement | null, cause: EntitlementCause, knownActive = before?.isActive ?? false) =>
  classifyEntitlementChange({ before, after, cause }, knownActive);

it('granted: active after, not known active before (new, or back after an end)', () => {
  expect(classify(null, shape(), grantCause)).toBe('entitlement.granted');
  expect(classify(shape({ isActive: false, validUntil: S(NOW - DAY) }), shape(), grantCause)).toBe('entitlement.granted');
});

it('renewed: known active before and the end moved later (lifetime is latest), even when the old end just passed', () => {
  expect(classify(shape(), shape({ validUntil: S(NOW + 60 * DAY) }), grantCause)).toBe('entitlement.renewed');
  expect(classify(shape(), shape({ validUntil: null }), grantCause)).toBe('entitlement.renewed');
  // The old end passed a moment ago and its expiry is not recorded yet: still a renewal.
  expect(classify(shape({ isActive: false, validUntil: S(NOW - 1000) }), shape(), railCause(), true)).toBe('entitlement.renewed');
});

it('no event when still active without a later end (another source, a shorter end) or when never active', () => {
  expect(classify(shape({ validUntil: null }), shape({ validUntil: null, source: { rail: 'stripe', productId: 'p', subscriptionId: 's' } }), grantCause)).toBeNull();
  expect(classify(shape(), shape({ validUntil: S(NOW + DAY) }), railCause())).toBeNull();
  expect(classify(null, shape({ isActive: false, validUntil: S(NOW - DAY) }), railCause())).toBeNull();
  expect(classify(shape({ isActive: false }), shape({ isActive: false, validUntil: S(NOW - 2 * DAY) }), railCause())).toBeNull();
});

it('revoked and refunded follow the cause, whether or not the key was still active', () => {
  expect(classify(shape(), null, revokeCause)).toBe('entitlement.revoked');
  expect(classify(shape(), null, railCause('revoked'))).toBe('entitlement.revoked');
  expect(classify(shape(), null, railCause('refunded'))).toBe('entitlement.refunded');
  expect(classify(shape({ isActive: false }), null, railCause('refunded'))).toBe('entitlement.refunded');
});

it('expired: the expiry worker’s record, or a rail ending known-active access without taking it back', () => {
  expect(classify(shape(), shape({ isActive: false }), expiryCause)).toBe('entitlement.expired');
  expect(classify(shape(), shape({ isActive: false, validUntil: S(NOW - 5000) }), railCause())).toBe('entitlement.expired');
  expect(classify(shape(), null, railCause())).toBe('entitlement.expired');
});

it('a merge’s losing side sends nothing (customer.merged tells it); its winning side is a grant', () => {
  expect(classify(shape(), null, mergeCause)).toBeNull();
  expect(classify(null, shape(), mergeCause)).toBe('entitlement.granted');
});

it('derives the event id from the partition and the change: same change, same id; otherwise different', () => {
  const a = webhookEventId({ projectId: 'proj_a', env: 'test' }, 'entitlementChange/cdcust_1:000000000001');
  expect(a).toMatch(/^evt_[A-Za-z0-9]{24}$/);
  expect(webhookEventId({ projectId: 'proj_a', env: 'test' }, 'entitlementChange/cdcust_1:000000000001')).toBe(a);
  expect(webhookEventId({ projectId: 'proj_a', env: 'live' }, 'entitlementChange/cdcust_1:000000000001')).not.toBe(a);
  expect(webhookEventId({ projectId: 'proj_b', env: 'test' }, 'entitlementChange/cdcust_1:000000000001')).not.toBe(a);
  expect(webhookEventId({ projectId: 'proj_a', env: 'test' }, 'entitlementChange/cdcust_1:000000000002')).not.toBe(a);
});

it('builds the §2 payload; a key that vanished is reported as it ended', () => {
  const change: EntitlementChange = {
    changeId: 'cdcust_1:000000000003',
    projectId: 'proj_a',
    env: 'live',
    customerId: 'cdcust_1',
    key: 'pro',
    sequence: 3,
    before: shape(),
    after: null,
    cause: revokeCause,
    changedAt: NOW,
    expiresAt: null as never,
  };
  const record = entitlementEventRecord(change, 'entitlement.revoked');
  expect(record).toMatchObject({ eventId: record.payload.id, projectId: 'proj_a', env: 'live', type: 'entitlement.revoked', createdAt: NOW, fannedOutAt: null, endpointId: null, changeId: change.changeId });
  expect(record.expiresAt.toMillis()).toBe(NOW + 30 * DAY);
  expect(JSON.parse(JSON.stringify(record.payload))).toEqual({
    id: record.eventId,
    object: 'event',
    type: 'entitlement.revoked',
    created: NOW,
    env: 'production',
    projectId: 'proj_a',
    apiVersion: 'v1',
    data: {
      serviceCustomerId: 'cdcust_1',
      sequence: 3,
      entitlement: { ...shape(), isActive: false, validUntil: S(NOW), updatedAt: S(NOW) },
      previous: shape(),
      cause: { rail: 'manual', auditEventId: 'srv_revoke_x' },
    },
  });
});
