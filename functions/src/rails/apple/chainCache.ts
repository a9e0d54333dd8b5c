import type { KeyObject, X509Certificate } from 'node:crypto';
import { BoundedMap } from '../../boundedMap';

/**
 * Certificate chains Apple's verifier has fully verified, by the exact DER bytes of their leaf and
 * intermediate (one cache per `SignedDataVerifier`, hence per set of trusted roots). A
 * notification's signed payload and its signed transaction and renewal info carry the same
 * chain; Apple's library re-verifies it for each (two ECDSA checks, `jsrsasign` re-parsing both
 * certificates) unless online checks are on. Only a chain that verified completely is stored,
 * and every hit still re-checks the certificates' validity at the JWS's effective date, so an
 * entry can never admit a chain the full check would refuse at that date. Each JWS's own
 * signature is still verified by the library with the leaf's key.
 */
export interface VerifiedChain {
  /** The leaf's public key, as the library's own check returns it. */
  publicKey: KeyObject;
  /** The latest `notBefore` and the earliest `notAfter` of the leaf, the intermediate and the root that verified them (ms). */
  validFrom: number;
  validTo: number;
  /** When the chain was verified (ms): online checks (OCSP) are repeated after `ONLINE_RECHECK_MS`. */
  verifiedAt: number;
}

/** Distinct chains kept (Apple signs with a handful at a time); the oldest entry goes first. */
export const CHAIN_CACHE_LIMIT = 32;
/** With online checks, revocation is re-checked as often as the library's own cache does (15 minutes). */
export const ONLINE_RECHECK_MS = 15 * 60 * 1000;

export class ChainCache {
  private readonly entries: BoundedMap<string, VerifiedChain>;

  constructor(limit = CHAIN_CACHE_LIMIT) {
    this.entries = new BoundedMap(limit);
  }

  /** The verified chain of exactly these certificates, unless online checks are due again. */
  get(leaf: X509Certificate, intermediate: X509Certificate, now: number, onlineChecks: boolean): VerifiedChain | undefined {
    return this.lookup(chainKey(leaf.raw.toString('base64'), intermediate.raw.toString('base64')), now, onlineChecks);
  }

  /**
   * The same, by the base64 a JWS header presents, unparsed: only a presentation in the
   * canonical base64 of the stored DER bytes finds it (any other spelling is a miss, never a
   * looser match).
   */
  getPresented(leafBase64: string, intermediateBase64: string, now: number, onlineChecks: boolean): VerifiedChain | undefined {
    return this.lookup(chainKey(leafBase64, intermediateBase64), now, onlineChecks);
  }

  private lookup(key: string, now: number, onlineChecks: boolean): VerifiedChain | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (onlineChecks && now - entry.verifiedAt >= ONLINE_RECHECK_MS) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /** Call only with a chain the full check has just accepted. */
  set(leaf: X509Certificate, intermediate: X509Certificate, entry: VerifiedChain): void {
    this.entries.set(chainKey(leaf.raw.toString('base64'), intermediate.raw.toString('base64')), entry);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** The exact DER bytes of both certificates, in base64 (a different intermediate under the same leaf is another chain). */
const chainKey = (leafBase64: string, intermediateBase64: string): string => `${leafBase64}.${intermediateBase64}`;

/** Whether every certificate of the chain is valid at `at` (ms), with the library's tolerance. */
export const validAt = (chain: VerifiedChain, at: number, skewMs: number): boolean => chain.validFrom <= at + skewMs && chain.validTo >= at - skewMs;

/** The window in which every one of `certificates` is valid (ms). */
export function validityWindow(certificates: readonly X509Certificate[]): { validFrom: number; validTo: number } {
  return {
    validFrom: Math.max(...certificates.map((cert) => Date.parse(cert.validFrom))),
    validTo: Math.min(...certificates.map((cert) => Date.parse(cert.validTo))),
  };
}
