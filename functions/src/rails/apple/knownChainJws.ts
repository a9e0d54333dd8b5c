import { verify, type KeyObject } from 'node:crypto';

/**
 * A JWS whose certificate chain Apple's verifier has already fully checked (chainCache.ts) only
 * needs its own signature verified with that chain's leaf key. The library's `verifyJWT` would
 * parse both x5c certificates again, export the leaf key as PEM and have `jsonwebtoken` import
 * it again, for every JWS (~60 % of its cost once the chain is known). This reads such a JWS
 * without any of that, and only in the shape App Store data always has; anything else is left
 * to the library (null), which then gives its own verdict. Nothing here can accept a JWS the
 * library would refuse: it is stricter (ES256 only; no `exp`/`nbf`, which `jsonwebtoken` would
 * judge; exactly the compact form `jws` accepts) and verifies the same signature with the same key.
 */
export interface PresentedJws {
  /** Leaf and intermediate exactly as the header presents them (base64 DER). */
  leaf: string;
  intermediate: string;
  payload: Record<string, unknown>;
  signingInput: string;
  signature: Buffer;
}

/** The compact serialisation `jws` accepts, with a signature. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** The JWS when it has App Store data's shape (ES256, an x5c of three certificates, a JSON object payload); else null. */
export function presentedJws(jwt: string): PresentedJws | null {
  if (!COMPACT_JWS.test(jwt)) return null;
  const [header64, payload64, signature64] = jwt.split('.');
  const header = jsonObject(header64);
  const payload = jsonObject(payload64);
  if (!header || !payload) return null;
  if (header.alg !== 'ES256') return null;
  const x5c = header.x5c;
  if (!Array.isArray(x5c) || x5c.length !== 3 || !x5c.every((cert) => typeof cert === 'string')) return null;
  // Registered time claims are `jsonwebtoken.verify`'s to judge: such a JWS goes the library's way.
  if ('exp' in payload || 'nbf' in payload) return null;
  return { leaf: x5c[0] as string, intermediate: x5c[1] as string, payload, signingInput: `${header64}.${payload64}`, signature: Buffer.from(signature64, 'base64url') };
}

/** Whether `key` (a P-256 leaf key) made the JWS's ES256 signature. */
export function signedBy(jws: PresentedJws, key: KeyObject): boolean {
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') return false;
  try {
    return verify('sha256', Buffer.from(jws.signingInput), { key, dsaEncoding: 'ieee-p1363' }, jws.signature);
  } catch {
    return false;
  }
}

function jsonObject(part: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
