import type { KeyObject } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify } from 'jose';

/**
 * A JWS whose certificate chain Apple's verifier has already fully checked (chainCache.ts) only
 * needs its own signature verified with that chain's leaf key. The library's `verifyJWT` would
 * parse both x5c certificates again, export the leaf key as PEM and have `jsonwebtoken` import
 * it again, for every JWS (~60 % of its cost once the chain is known). Here `jose` (the JWS
 * library of this stack) reads the header and verifies the signature and the registered time
 * claims with the cached key object, in the one shape App Store data has (ES256, an x5c of three
 * certificates); anything else is left to Apple's library (null), which then gives its own
 * verdict. Stricter than the library, never looser: ES256 only, the same key, the same signature.
 */

/** The chain a JWS presents (leaf and intermediate exactly as its header spells them, base64 DER), or null when it is not App Store data's shape. */
export function presentedChain(jwt: string): { leaf: string; intermediate: string } | null {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(jwt);
  } catch {
    return null;
  }
  const x5c = header.x5c;
  if (header.alg !== 'ES256' || !Array.isArray(x5c) || x5c.length !== 3 || !x5c.every((cert) => typeof cert === 'string')) return null;
  return { leaf: x5c[0], intermediate: x5c[1] };
}

/** The JWS's payload when `key` (the presented chain's verified leaf key) made its ES256 signature; else null. */
export async function payloadSignedBy(jwt: string, key: KeyObject): Promise<Record<string, unknown> | null> {
  try {
    const { payload } = await jwtVerify(jwt, key, { algorithms: ['ES256'] });
    return payload as Record<string, unknown>;
  } catch {
    return null;
  }
}
