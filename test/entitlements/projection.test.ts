/**
 * Guarantees of the pure entitlement logic: the projection keeps, per key, the unrevoked grant
 * that ends last (lifetime beats any date) with a deterministic tie-break, independent of the
 * grants' order and of the time it is computed; the public shape is ordered by key, in Unix
 * seconds, with `isActive` decided at read time; grant durations and ends.
 */
import { DAY } from '../../functions/src/clock';
import { grantEnd, laterEnd } from '../../functions/src/entitlements/durations';
import type { GrantRecord, ProjectionDoc } from '../../functions/src/entitlements/model';
import { projectEntitlements } from '../../functions/src/entitlements/projection';
import { grantToPublic, toPublicEntitlements } from '../../functions/src/entitlements/publicShape';

const T = Date.UTC(2026, 4, 1);
let n = 0;
function grant(key: string, overrides: Partial<GrantRecord> & { rail?: GrantRecord['source']['rail'] } = {}): GrantRecord {
  n += 1;
  const { rail, ...rest } = overrides;
  return {
    grantId: `g${String(n).padStart(3, '0')}`,
    customerId: 'cdcust_x',
    entitlementKey: key,
    source: { rail: rail ?? 'manual', productId: 'p', subscriptionId: `s${n}` },
    validUntil: T + DAY,
    revokedAt: null,
    createdAt: T,
    updatedAt: T,
    ...rest,
  };
}

function permutations<X>(items: X[]): X[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

describe('projectEntitlements', () => {
  it('excludes revoked grants, and a key with only revoked grants disappears', () => {
    const result = projectEntitlements([grant('pro', { revokedAt: T }), grant('team')], T);
    expect(Object.keys(result)).toEqual(['team']);
  });

  it('lifetime beats any date; otherwise the later validUntil wins', () => {
    const dated = grant('pro', { validUntil: T + 1000 * DAY, rail: 'stripe' });
    const lifetime = grant('pro', { validUntil: null });
    const shorter = grant('pro', { validUntil: T + 10 * DAY });
    expect(projectEntitlements([dated, lifetime, shorter], T).pro.validUntil).toBeNull();
    expect(projectEntitlements([dated, shorter], T).pro.source.subscriptionId).toBe(dated.source.subscriptionId);
  });

  it('ties go to a rail over manual, then the latest update, then the smaller grant id; the order of grants never matters', () => {
    const manual = grant('pro', { validUntil: T + DAY, updatedAt: T + 5 });
    const rail = grant('pro', { validUntil: T + DAY, rail: 'apple', updatedAt: T });
    const newer = grant('team', { validUntil: T + DAY, updatedAt: T + 9 });
    const older = grant('team', { validUntil: T + DAY, updatedAt: T + 1 });
    const sameA = grant('solo', { validUntil: T + DAY });
    const sameB = grant('solo', { validUntil: T + DAY });
    const outcomes = permutations([manual, rail, newer, older, sameA, sameB]).map((order) => projectEntitlements(order, T));
    for (const outcome of outcomes) expect(outcome).toEqual(outcomes[0]);
    expect(outcomes[0].pro.source.rail).toBe('apple');
    expect(outcomes[0].team.source.subscriptionId).toBe(newer.source.subscriptionId);
    expect(outcomes[0].solo.source.subscriptionId).toBe(sameA.source.subscriptionId);
  });

  it('keeps lapsed grants (the read reports them inactive) and does not depend on now', () => {
    const lapsed = grant('old', { validUntil: T - DAY });
    expect(projectEntitlements([lapsed], T)).toEqual(projectEntitlements([lapsed], T + 400 * DAY));
    expect(projectEntitlements([lapsed], T).old.validUntil).toBe(T - DAY);
  });

  it('updatedAt is the latest change among all grants of the key, a revoke included', () => {
    const kept = grant('pro', { validUntil: null, updatedAt: T });
    const revoked = grant('pro', { revokedAt: T + 50, updatedAt: T + 50 });
    expect(projectEntitlements([kept, revoked], T).pro.updatedAt).toBe(T + 50);
  });
});

describe('toPublicEntitlements', () => {
  const projection: ProjectionDoc = {
    customerId: 'cdcust_x',
    updatedAt: T,
    entitlements: {
      zeta: { key: 'zeta', validUntil: T + 1500, source: { rail: 'google', productId: 'z', subscriptionId: 'sz' }, updatedAt: T + 999 },
      alpha: { key: 'alpha', validUntil: null, source: { rail: 'manual', productId: 'manual', subscriptionId: 'grt' }, updatedAt: T },
    },
  };

  it('orders by key, converts to Unix seconds and decides isActive at read time', () => {
    expect(toPublicEntitlements(projection, T)).toEqual([
      { object: 'entitlement', key: 'alpha', isActive: true, validUntil: null, source: { rail: 'manual', productId: 'manual', subscriptionId: 'grt' }, updatedAt: Math.floor(T / 1000) },
      { object: 'entitlement', key: 'zeta', isActive: true, validUntil: Math.floor((T + 1500) / 1000), source: { rail: 'google', productId: 'z', subscriptionId: 'sz' }, updatedAt: Math.floor((T + 999) / 1000) },
    ]);
    expect(toPublicEntitlements(projection, T + 1500)[1].isActive).toBe(false);
    expect(toPublicEntitlements(projection, T + 1499)[1].isActive).toBe(true);
  });

  it('no projection is an empty list', () => {
    expect(toPublicEntitlements(null, T)).toEqual([]);
  });

  it('a revoked grant is inactive and ends at its revocation', () => {
    const revoked = grant('pro', { validUntil: null, revokedAt: T + 5000, updatedAt: T + 5000 });
    expect(grantToPublic(revoked, T + 6000)).toMatchObject({ isActive: false, validUntil: Math.floor((T + 5000) / 1000) });
    expect(grantToPublic(grant('pro', { validUntil: null }), T).isActive).toBe(true);
  });
});

describe('grant durations', () => {
  it('P30D and P90D are days, P1Y a calendar year, lifetime null; the later end wins with lifetime on top', () => {
    expect(grantEnd('P30D', T)).toBe(T + 30 * DAY);
    expect(grantEnd('P90D', T)).toBe(T + 90 * DAY);
    expect(grantEnd('P1Y', Date.UTC(2027, 5, 15, 12))).toBe(Date.UTC(2028, 5, 15, 12));
    expect(grantEnd('lifetime', T)).toBeNull();
    expect(laterEnd(T, T + 1)).toBe(T + 1);
    expect(laterEnd(null, T)).toBeNull();
    expect(laterEnd(T, null)).toBeNull();
  });
});
