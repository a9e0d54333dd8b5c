import { createHash, type KeyObject, type X509Certificate } from 'node:crypto';
import type {
  JWSRenewalInfoDecodedPayload,
  JWSTransactionDecodedPayload,
  ResponseBodyV2DecodedPayload,
  SignedDataVerifier,
} from '@apple/app-store-server-library';
import type { AppleRailConfig } from '../config';
import { ChainCache, validAt, validityWindow } from './chainCache';
import { payloadSignedBy, presentedChain } from './knownChainJws';

/**
 * App Store signed data, verified only by Apple's own library (`SignedDataVerifier`: x5c chain
 * to the configured roots, Apple's marker OIDs on the intermediate and the leaf, signature,
 * bundle id, app Apple id in production, environment). Only the two real environments are
 * ever targeted: the library skips signature checks for Xcode and LocalTesting.
 */
export type AppleEnvironment = 'Production' | 'Sandbox';

/** Why verification failed, for the audit entry and the logs (never the payload). */
export class AppleVerificationFailed extends Error {
  constructor(
    readonly reason: string,
    /** Apple's revocation service could not be reached: worth a retry, not a rejection. */
    readonly retryable = false,
  ) {
    super(`App Store signature verification failed: ${reason}`);
    this.name = 'AppleVerificationFailed';
  }
}

type AppleLibrary = typeof import('@apple/app-store-server-library');
let library: Promise<AppleLibrary> | undefined;
/** Apple's library (~100 ms to load) is loaded by the first App Store request, not at cold start. */
const appleLibrary = (): Promise<AppleLibrary> => (library ??= import('@apple/app-store-server-library'));

/** The library's payload check handed to `verifyJWT` (its `Validator`, not exported). */
interface PayloadValidator<T> {
  validate(value: unknown): value is T;
}

/** The library's tolerance around certificate validity (its `MAX_SKEW`, not exported). */
const CERTIFICATE_DATE_SKEW_MS = 60_000;

/**
 * Apple's `SignedDataVerifier`, verifying each distinct certificate chain once (chainCache.ts)
 * through the library's own extension point (`verifyCertificateChain`, which the library uses
 * for its online-checks cache). A miss runs the library's full check (roots, Apple's marker
 * OIDs, CA flag, dates, OCSP when online) and only its success is stored; a hit re-checks the
 * three certificates' dates at this JWS's effective date the way the library does. Everything
 * else (header, x5c length, the JWS signature with the leaf's key, bundle id, environment) runs
 * in the library for every JWS.
 */
let chainCachingVerifier: ReturnType<typeof defineChainCachingVerifier> | undefined;
function defineChainCachingVerifier({ SignedDataVerifier, VerificationException, VerificationStatus }: AppleLibrary) {
  return class ChainCachingVerifier extends SignedDataVerifier {
    private readonly chains = new ChainCache();

    /**
     * A JWS presenting a chain already verified (in exactly the base64 it was verified from) is
     * checked here: the payload by the library's own validator, the chain's dates at this JWS's
     * effective date, its signature with the chain's leaf key (knownChainJws.ts). Anything else,
     * and any failure, goes through the library's `verifyJWT`, whose verdict then stands.
     */
    protected override async verifyJWT<T>(jwt: string, validator: PayloadValidator<T>, signedDateExtractor: (decoded: T) => Date): Promise<T> {
      let known: T | null = null;
      try {
        known = await this.verifiedUnderKnownChain(jwt, validator, signedDateExtractor);
      } catch {
        known = null; // whatever went wrong here, the library judges the JWS itself
      }
      return known ?? super.verifyJWT(jwt, validator, signedDateExtractor);
    }

    private async verifiedUnderKnownChain<T>(jwt: string, validator: PayloadValidator<T>, signedDateExtractor: (decoded: T) => Date): Promise<T | null> {
      const presented = presentedChain(jwt);
      if (!presented) return null;
      const known = this.chains.getPresented(presented.leaf, presented.intermediate, Date.now(), this.enableOnlineChecks);
      if (!known) return null;
      const payload = await payloadSignedBy(jwt, known.publicKey);
      if (!payload || !validator.validate(payload)) return null;
      const effectiveDate = this.enableOnlineChecks ? new Date() : signedDateExtractor(payload);
      return validAt(known, effectiveDate.getTime(), CERTIFICATE_DATE_SKEW_MS) ? payload : null;
    }

    protected override async verifyCertificateChain(trustedRoots: X509Certificate[], leaf: X509Certificate, intermediate: X509Certificate, effectiveDate: Date): Promise<KeyObject> {
      const now = Date.now();
      const known = this.chains.get(leaf, intermediate, now, this.enableOnlineChecks);
      if (known) {
        if (!validAt(known, effectiveDate.getTime(), CERTIFICATE_DATE_SKEW_MS)) throw new VerificationException(VerificationStatus.INVALID_CERTIFICATE);
        return known.publicKey;
      }
      const publicKey = await this.verifyCertificateChainWithoutCaching(trustedRoots, leaf, intermediate, effectiveDate);
      // The root the library accepted (its loop keeps the last that signed the intermediate), for its dates.
      const root = trustedRoots.findLast((candidate) => intermediate.issuer === candidate.subject && intermediate.verify(candidate.publicKey));
      if (root) this.chains.set(leaf, intermediate, { publicKey, ...validityWindow([leaf, intermediate, root]), verifiedAt: now });
      return publicKey;
    }
  };
}

export class AppleVerifiers {
  private readonly cache = new Map<string, SignedDataVerifier>();

  /** `onlineChecks`: OCSP revocation and expiry at the current date (off only in tests, where Apple is unreachable). */
  constructor(private readonly onlineChecks: boolean) {}

  /** The verifier for one environment, or null when the configuration cannot verify it. */
  async forEnvironment(config: AppleRailConfig, environment: AppleEnvironment): Promise<SignedDataVerifier | null> {
    const roots = config.rootCertificates ?? [];
    if (roots.length === 0) return null;
    // Apple's verifier requires the app's Apple id for production data.
    if (environment === 'Production' && (config.appAppleId === undefined || config.appAppleId === null)) return null;
    const appAppleId = config.appAppleId ?? undefined;
    const cacheKey = createHash('sha256')
      .update(JSON.stringify([environment, config.bundleId, appAppleId ?? null, roots, this.onlineChecks]))
      .digest('hex');
    let verifier = this.cache.get(cacheKey);
    if (!verifier) {
      const apple = await appleLibrary();
      const env = environment === 'Production' ? apple.Environment.PRODUCTION : apple.Environment.SANDBOX;
      const ChainCachingVerifier = (chainCachingVerifier ??= defineChainCachingVerifier(apple));
      verifier = new ChainCachingVerifier(roots.map((cert) => Buffer.from(cert, 'base64')), this.onlineChecks, env, config.bundleId, appAppleId);
      if (this.cache.size >= 64) this.cache.clear();
      this.cache.set(cacheKey, verifier);
    }
    return verifier;
  }

  /**
   * A signed transaction from a device, verified in each environment until one accepts it (the
   * environment is inside the payload and each verifier accepts only its own). The environment
   * the payload claims is tried first, unverified and only to order the attempts: a genuine
   * transaction is verified once, not first refused by the other environment's verifier.
   */
  async verifyTransaction(config: AppleRailConfig, signedTransaction: string): Promise<{ transaction: JWSTransactionDecodedPayload; environment: AppleEnvironment }> {
    const failures: string[] = [];
    const claimsSandbox = unverifiedJwsPayload(signedTransaction)?.environment === 'Sandbox';
    for (const environment of claimsSandbox ? (['Sandbox', 'Production'] as const) : (['Production', 'Sandbox'] as const)) {
      const verifier = await this.forEnvironment(config, environment);
      if (!verifier) {
        failures.push(`${environment}: not configured`);
        continue;
      }
      try {
        const transaction = await verifier.verifyAndDecodeTransaction(signedTransaction);
        return { transaction, environment };
      } catch (err) {
        const failure = await describeFailure(err);
        if (failure.retryable) throw failure;
        failures.push(`${environment}: ${failure.reason}`);
      }
    }
    throw new AppleVerificationFailed(failures.join('; '));
  }

  /** Renewal info in the environment the transaction verified in. */
  async verifyRenewalInfo(config: AppleRailConfig, environment: AppleEnvironment, signedRenewalInfo: string): Promise<JWSRenewalInfoDecodedPayload> {
    const verifier = await this.forEnvironment(config, environment);
    if (!verifier) throw new AppleVerificationFailed(`${environment}: not configured`);
    try {
      return await verifier.verifyAndDecodeRenewalInfo(signedRenewalInfo);
    } catch (err) {
      throw await describeFailure(err);
    }
  }

  /** A server notification's `signedPayload`, in the environment it claims (checked by the verifier). */
  async verifyNotification(config: AppleRailConfig, environment: AppleEnvironment, signedPayload: string): Promise<ResponseBodyV2DecodedPayload> {
    const verifier = await this.forEnvironment(config, environment);
    if (!verifier) throw new AppleVerificationFailed(`${environment}: not configured`);
    try {
      return await verifier.verifyAndDecodeNotification(signedPayload);
    } catch (err) {
      throw await describeFailure(err);
    }
  }

  async verifyTransactionIn(config: AppleRailConfig, environment: AppleEnvironment, signedTransaction: string): Promise<JWSTransactionDecodedPayload> {
    const verifier = await this.forEnvironment(config, environment);
    if (!verifier) throw new AppleVerificationFailed(`${environment}: not configured`);
    try {
      return await verifier.verifyAndDecodeTransaction(signedTransaction);
    } catch (err) {
      throw await describeFailure(err);
    }
  }
}

const shared = new Map<boolean, AppleVerifiers>();

/** One verifier set per process (each caches its `SignedDataVerifier`s). */
export function appleVerifiers(onlineChecks: boolean): AppleVerifiers {
  let verifiers = shared.get(onlineChecks);
  if (!verifiers) {
    verifiers = new AppleVerifiers(onlineChecks);
    shared.set(onlineChecks, verifiers);
  }
  return verifiers;
}

async function describeFailure(err: unknown): Promise<AppleVerificationFailed> {
  const { VerificationException, VerificationStatus } = await appleLibrary();
  if (err instanceof VerificationException) {
    const status = VerificationStatus[err.status] ?? String(err.status);
    return new AppleVerificationFailed(status.toLowerCase(), err.status === VerificationStatus.RETRYABLE_VERIFICATION_FAILURE);
  }
  return new AppleVerificationFailed(err instanceof Error ? err.message : 'unknown failure');
}

/**
 * The environment a notification claims, read WITHOUT verification, only to choose which
 * configuration and verifier to verify it with (the verifier then checks the claim).
 */
export function claimedNotificationEnvironment(signedPayload: string): AppleEnvironment | null {
  const payload = unverifiedJwsPayload(signedPayload);
  const data = payload?.data as Record<string, unknown> | undefined;
  const summary = payload?.summary as Record<string, unknown> | undefined;
  const claimed = data?.environment ?? summary?.environment;
  if (claimed === 'Production') return 'Production';
  if (claimed === undefined || claimed === null) return null;
  return 'Sandbox';
}

export function unverifiedJwsPayload(jws: string): Record<string, unknown> | null {
  const parts = jws.split('.');
  if (parts.length !== 3) return null;
  try {
    const payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as unknown;
    return typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? (payload as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
