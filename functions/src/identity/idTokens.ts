import type { Firestore } from 'firebase-admin/firestore';
import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { readIdentityProvider, type IdentityProviderConfig } from './providerConfig';

/** What a verified identity token tells us. */
export interface VerifiedIdentity {
  subject: string;
  email: string | null;
  givenName: string | null;
}

/**
 * `invalid`: the token failed verification (signature, issuer, audience, expiry, subject) or the
 * project has no identity provider to verify against. `unavailable`: the provider's keys could
 * not be fetched, which says nothing about the token.
 */
export type TokenCheck = { ok: true; identity: VerifiedIdentity } | { ok: false; reason: 'invalid' | 'unavailable'; detail: string };

/** The injectable edge that verifies developers' identity tokens (see Deps.idTokens). */
export interface IdTokenVerifier {
  verify(projectId: string, token: string, expectedSubject: string, now: number): Promise<TokenCheck>;
}

/** Asymmetric algorithms only: a provider's JWKS never holds shared secrets, and `none` is never accepted. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
/** A provider change (`identity-provider set`) takes effect within this window on a warm instance. */
export const PROVIDER_CONFIG_TTL_MS = 60_000;
const CLOCK_TOLERANCE_SECONDS = 30;

/**
 * Verifies tokens with jose against the project's configured provider: issuer, audience,
 * signature by a key of the provider's JWKS (fetched from its URL and cached by jose: 10 min
 * max age, 30 s cooldown before a refetch for an unknown `kid`), expiry against the service
 * clock, and the subject against the claimed user id.
 */
export class JoseIdTokenVerifier implements IdTokenVerifier {
  private readonly configs = new Map<string, { config: IdentityProviderConfig | null; readAt: number }>();
  private readonly keySets = new Map<string, JWTVerifyGetKey>();

  constructor(private readonly db: Firestore) {}

  async verify(projectId: string, token: string, expectedSubject: string, now: number): Promise<TokenCheck> {
    const config = await this.providerConfig(projectId, now);
    if (!config) return { ok: false, reason: 'invalid', detail: 'no identity provider configured for the project' };
    let keySet: JWTVerifyGetKey;
    try {
      keySet = this.keySet(config);
    } catch (err) {
      return { ok: false, reason: 'unavailable', detail: `identity provider keys unusable: ${describe(err)}` };
    }
    try {
      const { payload } = await jwtVerify(token, keySet, {
        issuer: config.issuer,
        audience: config.audience,
        algorithms: ALGORITHMS,
        currentDate: new Date(now),
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['sub', 'exp'],
      });
      if (payload.sub !== expectedSubject) return { ok: false, reason: 'invalid', detail: 'subject does not match userId' };
      return {
        ok: true,
        identity: {
          subject: payload.sub,
          email: typeof payload.email === 'string' ? payload.email : null,
          givenName: typeof payload.given_name === 'string' ? payload.given_name : null,
        },
      };
    } catch (err) {
      return { ok: false, reason: isKeyFetchFailure(err) ? 'unavailable' : 'invalid', detail: describe(err) };
    }
  }

  private async providerConfig(projectId: string, now: number): Promise<IdentityProviderConfig | null> {
    const cached = this.configs.get(projectId);
    if (cached && now - cached.readAt < PROVIDER_CONFIG_TTL_MS && now >= cached.readAt) return cached.config;
    const config = await readIdentityProvider(this.db, projectId);
    this.configs.set(projectId, { config, readAt: now });
    return config;
  }

  private keySet(config: IdentityProviderConfig): JWTVerifyGetKey {
    const cacheKey = config.jwksUri ? `uri:${config.jwksUri}` : `jwks:${config.jwks}`;
    let keySet = this.keySets.get(cacheKey);
    if (!keySet) {
      if (config.jwksUri) keySet = createRemoteJWKSet(new URL(config.jwksUri));
      else if (config.jwks) keySet = createLocalJWKSet(JSON.parse(config.jwks) as JSONWebKeySet);
      else throw new Error('provider has neither jwksUri nor jwks');
      this.keySets.set(cacheKey, keySet);
    }
    return keySet;
  }
}

function isKeyFetchFailure(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  if (code === 'ERR_JWKS_TIMEOUT' || code === 'ERR_JWKS_INVALID') return true;
  if (code === 'ERR_JOSE_GENERIC') return /JSON Web Key Set/.test((err as Error).message);
  // Network failure reaching the JWKS URL (by name: fetch may throw from another realm).
  return (err as Error)?.name === 'TypeError' && /fetch/i.test((err as Error).message);
}

const describe = (err: unknown): string => (err instanceof Error ? `${(err as { code?: string }).code ?? err.name}: ${err.message}` : String(err));
