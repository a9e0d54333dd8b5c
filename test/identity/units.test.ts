/**
 * Pure rules of the identity capability, unit-tested: trait validation and additive merge,
 * the velocity window arithmetic, the device trust tiers and their 90-day boundary, identifier
 * patterns and conflict ids naming their partition.
 */
import { DAY } from '../../functions/src/clock';
import { parseConflictId } from '../../functions/src/identity/conflictModel';
import { isAnonymousId, isUserId } from '../../functions/src/identity/identifiers';
import { APP_ACCOUNT_TOKEN } from '../../functions/src/ids';
import { deviceTier, TRUSTED_DEVICE_WINDOW_MS } from '../../functions/src/identity/resolveService';
import { MAX_STORED_TRAIT_KEYS, mergeTraits, sanitizeTraits } from '../../functions/src/identity/traits';
import { admitCall, VelocityWindow } from '../../functions/src/identity/velocity';

describe('traits', () => {
  it('keeps primitives, drops nested objects and arrays', () => {
    expect(sanitizeTraits({ a: 'x', b: 1.5, c: false, d: null, e: { f: 1 }, g: [1] })).toEqual({ a: 'x', b: 1.5, c: false, d: null });
    expect(sanitizeTraits(undefined)).toEqual({});
  });
  it('rejects non-finite numbers, long strings, too many keys and bad keys', () => {
    expect(() => sanitizeTraits({ n: Infinity })).toThrow(/finite/);
    expect(() => sanitizeTraits({ n: Number.NaN })).toThrow(/finite/);
    expect(() => sanitizeTraits({ s: 'x'.repeat(1025) })).toThrow(/1024/);
    expect(() => sanitizeTraits(Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, 1])))).toThrow(/32/);
    expect(() => sanitizeTraits({ '': 1 })).toThrow();
    expect(() => sanitizeTraits({ __name__: 1 })).toThrow();
    expect(() => sanitizeTraits('str')).toThrow(/object/);
  });
  it('merges additively per key and bounds the stored set', () => {
    expect(mergeTraits({ a: 1, b: 2 }, { b: 3, c: null })).toEqual({ a: 1, b: 3, c: null });
    const full = Object.fromEntries(Array.from({ length: MAX_STORED_TRAIT_KEYS }, (_, i) => [`k${i}`, i]));
    const merged = mergeTraits(full, { k0: 'updated', extra: 1 });
    expect(merged.k0).toBe('updated');
    expect('extra' in merged).toBe(false);
  });
});

describe('velocity', () => {
  it('admits 30 calls in 60 s and refuses the 31st until the oldest leaves the window', () => {
    let times: number[] = [];
    for (let i = 0; i < 30; i += 1) {
      const decision = admitCall(times, 1000 + i);
      expect(decision.admitted).toBe(true);
      times = decision.times;
    }
    const refused = admitCall(times, 1030);
    expect(refused).toMatchObject({ admitted: false, retryAfterMs: 60_000 - 30 });
    expect(admitCall(times, 61_000).admitted).toBe(true); // the first call (t=1000) left the window
  });
  it('the in-memory window is per key', () => {
    const window = new VelocityWindow(2, 1000);
    expect(window.admit('a', 0).admitted).toBe(true);
    expect(window.admit('a', 1).admitted).toBe(true);
    expect(window.admit('a', 2).admitted).toBe(false);
    expect(window.admit('b', 2).admitted).toBe(true);
    expect(window.admit('a', 1001).admitted).toBe(true);
  });
});

describe('device tiers', () => {
  const now = 1_000 * DAY;
  it('maps bindings to tiers 0–2 with the right actions', () => {
    expect(deviceTier(null, true, now)).toEqual({ trustTier: 0, status: 'anonymous', recommendedAction: 'onboard' });
    expect(deviceTier({ developerId: null, verifiedAt: now }, true, now).trustTier).toBe(0);
    expect(deviceTier({ developerId: 'u', verifiedAt: null }, true, now)).toEqual({ trustTier: 1, status: 'recognized', recommendedAction: 'welcome_back' });
    expect(deviceTier({ developerId: 'u', verifiedAt: now - DAY }, true, now)).toEqual({ trustTier: 2, status: 'recognized', recommendedAction: 'one_tap' });
    expect(deviceTier({ developerId: 'u', verifiedAt: now - DAY }, false, now).recommendedAction).toBe('silent_refresh');
  });
  it('the 90-day window is inclusive at its end and never trusts a future stamp', () => {
    expect(deviceTier({ developerId: 'u', verifiedAt: now - TRUSTED_DEVICE_WINDOW_MS }, false, now).trustTier).toBe(2);
    expect(deviceTier({ developerId: 'u', verifiedAt: now - TRUSTED_DEVICE_WINDOW_MS - 1 }, false, now).trustTier).toBe(1);
    expect(deviceTier({ developerId: 'u', verifiedAt: now + 1 }, false, now).trustTier).toBe(1);
  });
});

describe('identifiers', () => {
  it('follows the spec’s character sets and lengths', () => {
    expect(isUserId('a_b-c.d:e@f')).toBe(true);
    expect(isUserId('u'.repeat(256))).toBe(true);
    expect(isUserId('u'.repeat(257))).toBe(false);
    expect(isUserId('')).toBe(false);
    expect(isAnonymousId('a_b-C9')).toBe(true);
    expect(isAnonymousId('a.b')).toBe(false);
    expect(isAnonymousId('a'.repeat(129))).toBe(false);
    expect(APP_ACCOUNT_TOKEN.pattern.test('e5a1a0f2-3c4b-4d5e-8f70-8192a3b4c5d6')).toBe(true);
    expect(APP_ACCOUNT_TOKEN.pattern.test('E5A1A0F2-3C4B-4D5E-8F70-8192A3B4C5D6')).toBe(false);
    expect(APP_ACCOUNT_TOKEN.pattern.test('e5a1a0f2-3c4b-0d5e-8f70-8192a3b4c5d6')).toBe(false);
  });
  it('conflict ids name their partition', () => {
    expect(parseConflictId(`cfl_live_${'a'.repeat(24)}_proj_abc`)).toEqual({ env: 'live', projectId: 'proj_abc' });
    expect(parseConflictId('cfl_prod_x_proj')).toBeNull();
  });
});
