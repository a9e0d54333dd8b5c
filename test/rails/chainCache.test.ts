/**
 * The verified-chain cache itself (rails/apple/chainCache.ts): keyed by the exact bytes of leaf
 * and intermediate, bounded, and with online checks on, forgotten when revocation is due again.
 */
import { createPublicKey, X509Certificate } from 'node:crypto';
import { CHAIN_CACHE_LIMIT, ChainCache, ONLINE_RECHECK_MS, validityWindow, type VerifiedChain } from '../../functions/src/rails/apple/chainCache';
import { AppleChain } from './support/appleChain';

const certificatesOf = (chain: AppleChain) => chain.certificates.map((cert) => new X509Certificate(Buffer.from(cert, 'base64')));
const entryFor = (leaf: X509Certificate, verifiedAt: number): VerifiedChain => ({ publicKey: createPublicKey(leaf.publicKey.export({ type: 'spki', format: 'pem' })), validFrom: 0, validTo: Number.MAX_SAFE_INTEGER, verifiedAt });

describe('ChainCache', () => {
  const a = certificatesOf(new AppleChain());
  const b = certificatesOf(new AppleChain());

  it('hits only the exact leaf and intermediate it stored', () => {
    const cache = new ChainCache();
    cache.set(a[0], a[1], entryFor(a[0], 0));
    expect(cache.get(a[0], a[1], 1, false)).toBeDefined();
    expect(cache.get(a[0], b[1], 1, false)).toBeUndefined(); // same leaf, another intermediate
    expect(cache.get(b[0], a[1], 1, false)).toBeUndefined();
    // Equal bytes parsed again are the same chain.
    expect(cache.get(new X509Certificate(a[0].raw), new X509Certificate(a[1].raw), 1, false)).toBeDefined();
  });

  it('by the base64 a JWS presents: only the canonical spelling of the stored bytes is found', () => {
    const cache = new ChainCache();
    cache.set(a[0], a[1], entryFor(a[0], 0));
    const [leaf, intermediate] = [a[0].raw.toString('base64'), a[1].raw.toString('base64')];
    expect(cache.getPresented(leaf, intermediate, 1, false)).toBe(cache.get(a[0], a[1], 1, false));
    expect(cache.getPresented(leaf, b[1].raw.toString('base64'), 1, false)).toBeUndefined();
    // The same bytes spelled otherwise (line breaks, base64url): Buffer.from would decode them alike, the cache does not.
    expect(cache.getPresented(`${leaf.slice(0, 64)}\n${leaf.slice(64)}`, intermediate, 1, false)).toBeUndefined();
    expect(cache.getPresented(a[0].raw.toString('base64url'), intermediate, 1, false)).toBeUndefined();
  });

  it('keeps at most its limit, dropping the oldest', () => {
    const cache = new ChainCache(2);
    const c = certificatesOf(new AppleChain());
    cache.set(a[0], a[1], entryFor(a[0], 0));
    cache.set(b[0], b[1], entryFor(b[0], 0));
    cache.set(c[0], c[1], entryFor(c[0], 0));
    expect(cache.size).toBe(2);
    expect(cache.get(a[0], a[1], 1, false)).toBeUndefined();
    expect(cache.get(c[0], c[1], 1, false)).toBeDefined();
    expect(CHAIN_CACHE_LIMIT).toBeGreaterThan(1);
  });

  it('with online checks, forgets an entry once revocation is due to be checked again', () => {
    const cache = new ChainCache();
    cache.set(a[0], a[1], entryFor(a[0], 1_000));
    expect(cache.get(a[0], a[1], 1_000 + ONLINE_RECHECK_MS - 1, true)).toBeDefined();
    expect(cache.get(a[0], a[1], 1_000 + ONLINE_RECHECK_MS, true)).toBeUndefined();
    expect(cache.size).toBe(0);
    // Offline, dates are judged per JWS by the caller: the entry does not age out.
    cache.set(a[0], a[1], entryFor(a[0], 1_000));
    expect(cache.get(a[0], a[1], 1_000 + 10 * ONLINE_RECHECK_MS, false)).toBeDefined();
  });

  it('validityWindow is the intersection of the certificates’ windows', () => {
    const window = validityWindow(a);
    expect(window.validFrom).toBe(Math.max(...a.map((cert) => Date.parse(cert.validFrom))));
    expect(window.validTo).toBe(Math.min(...a.map((cert) => Date.parse(cert.validTo))));
    expect(window.validFrom).toBeLessThan(window.validTo);
  });
});
