/**
 * Guarantees of the pure migration logic: the rail-owned gate's outcomes (recorded rail grant,
 * Stripe live / lapsed / unreadable, catalog relevance, no rail → grant) and the per-row checks
 * with their machine-readable reasons.
 */
import { DAY } from '../../functions/src/clock';
import type { GrantRecord } from '../../functions/src/entitlements/model';
import { decideGate } from '../../functions/src/migration/gate';
import { checkRow } from '../../functions/src/migration/rows';

const T = Date.UTC(2026, 4, 1);
const railGrant = (key: string, validUntil: number | null, revokedAt: number | null = null): GrantRecord => ({
  grantId: 'g',
  customerId: 'cdcust_x',
  entitlementKey: key,
  source: { rail: 'google', productId: 'p', subscriptionId: 's' },
  validUntil,
  revokedAt,
  createdAt: T,
  updatedAt: T,
});
const sub = (status: string, product = 'prod_a') => ({ id: `sub_${status}`, status, productRefs: [product, `price_${product}`] });

describe('decideGate', () => {
  it('an active recorded rail grant owns the key, before Stripe is consulted', () => {
    expect(decideGate('pro', T, [railGrant('pro', T + DAY)], { readable: false, reason: 'x' }, new Set())).toEqual({ outcome: 'rail_backed', reason: 'google_grant_active' });
  });

  it('Stripe: unreadable → undetermined; live statuses → rail-backed; only ended ones → lapsed; none → grant', () => {
    expect(decideGate('pro', T, [], { readable: false, reason: 'stripe_not_configured' }, new Set()).outcome).toBe('undetermined');
    for (const status of ['active', 'trialing', 'past_due']) expect(decideGate('pro', T, [], { readable: true, subscriptions: [sub('canceled'), sub(status)] }, new Set()).outcome).toBe('rail_backed');
    for (const status of ['canceled', 'unpaid', 'incomplete_expired', 'paused']) expect(decideGate('pro', T, [], { readable: true, subscriptions: [sub(status)] }, new Set()).outcome).toBe('lapsed');
    expect(decideGate('pro', T, [], { readable: true, subscriptions: [] }, new Set())).toEqual({ outcome: 'grant', reason: 'no_rail_behind_customer' });
  });

  it('with the key mapped in the catalog, only subscriptions of its products count (by product or price id)', () => {
    const view = { readable: true as const, subscriptions: [sub('active', 'prod_other')] };
    expect(decideGate('pro', T, [], view, new Set(['prod_pro'])).outcome).toBe('grant');
    expect(decideGate('pro', T, [], view, new Set(['prod_other'])).outcome).toBe('rail_backed');
    expect(decideGate('pro', T, [], view, new Set(['price_prod_other'])).outcome).toBe('rail_backed');
  });

  it('a recorded rail grant that ended (or was revoked by the rail) is lapsed; grants of other keys do not matter', () => {
    expect(decideGate('pro', T, [railGrant('pro', T - 1)], null, new Set()).outcome).toBe('lapsed');
    expect(decideGate('pro', T, [railGrant('pro', null, T - 1)], null, new Set()).outcome).toBe('lapsed');
    expect(decideGate('pro', T, [railGrant('team', T + DAY)], null, new Set()).outcome).toBe('grant');
  });
});

describe('checkRow', () => {
  it('normalises a valid row: hints in order of authority, lowercase appAccountToken, asserted keys sorted', () => {
    const check = checkRow({
      developerUserId: 'u1',
      email: 'a@b.c',
      displayName: 'Ann',
      stripeCustomerId: 'cus_1',
      appleAppAccountToken: 'AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE',
      entitlements: { zed: true, alpha: 1, off: false },
      traits: { a: 1 },
    });
    expect(check).toEqual({
      ok: true,
      row: {
        developerUserId: 'u1',
        email: 'a@b.c',
        traits: { a: 1, displayName: 'Ann' },
        hints: [
          { kind: 'developer', id: 'u1' },
          { kind: 'stripe', id: 'cus_1' },
          { kind: 'apple_aat', id: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee' },
        ],
        stripeCustomerId: 'cus_1',
        assertedKeys: ['alpha', 'zed'],
      },
    });
  });

  it('names what is wrong', () => {
    const reason = (row: unknown) => {
      const check = checkRow(row);
      return check.ok ? 'ok' : check.reason;
    };
    expect(reason(null)).toBe('row_invalid');
    expect(reason([])).toBe('row_invalid');
    expect(reason({})).toBe('developerUserId_required');
    expect(reason({ developerUserId: '' })).toBe('developerUserId_required');
    expect(reason({ developerUserId: 5 })).toBe('developerUserId_invalid');
    expect(reason({ developerUserId: 'a'.repeat(256) })).toBe('ok');
    expect(reason({ developerUserId: 'a'.repeat(257) })).toBe('developerUserId_invalid');
    expect(reason({ developerUserId: 'u', email: 'nope' })).toBe('email_invalid');
    expect(reason({ developerUserId: 'u', displayName: 7 })).toBe('displayName_invalid');
    expect(reason({ developerUserId: 'u', cardCustomerId: 'has space' })).toBe('cardCustomerId_invalid');
    expect(reason({ developerUserId: 'u', storeBPurchaseToken: 42 })).toBe('storeBPurchaseToken_invalid');
    expect(reason({ developerUserId: 'u', entitlements: ['pro'] })).toBe('entitlements_invalid');
    expect(reason({ developerUserId: 'u', entitlements: { x: true } })).toBe('entitlementKey_invalid');
    expect(reason({ developerUserId: 'u', traits: 'gold' })).toBe('traits_invalid');
    expect(reason({ developerUserId: 'u', cardCustomerId: null, email: null })).toBe('ok');
  });
});
