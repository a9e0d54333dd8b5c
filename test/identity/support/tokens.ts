import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import type { Firestore } from 'firebase-admin/firestore';
import { identityProviderRef, type IdentityProviderConfig } from '../../../functions/src/identity/providerConfig';

/**
 * A developer's identity provider for tests: an ES256 key pair whose public half is served as a
 * JWKS over http on 127.0.0.1, and a signer for tokens with any claims (including wrong ones).
 */
export const ISSUER = 'https://id.example.test';
export const AUDIENCE = 'tessera-test-app';

export interface TestProvider {
  jwksUri: string;
  publicJwk: JWK;
  sign(claims: { sub?: string; iss?: string; aud?: string; email?: string; given_name?: string }, options?: { issuedAt?: number; expiresAt?: number; key?: CryptoKey; kid?: string }): Promise<string>;
  /** A second key pair, never published: tokens signed with it are forgeries. */
  forgeryKey: CryptoKey;
  close(): Promise<void>;
}

export async function startProvider(nowMs: () => number): Promise<TestProvider> {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const forged = await generateKeyPair('ES256');
  const publicJwk = { ...(await exportJWK(publicKey)), kid: 'test-key-1', alg: 'ES256', use: 'sig' };
  const server: Server = createServer((req, res) => {
    if (req.url === '/jwks.json') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ keys: [publicJwk] }));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    jwksUri: `http://127.0.0.1:${port}/jwks.json`,
    publicJwk,
    forgeryKey: forged.privateKey,
    async sign(claims, options = {}) {
      const iat = Math.floor((options.issuedAt ?? nowMs()) / 1000);
      const exp = Math.floor((options.expiresAt ?? nowMs() + 3_600_000) / 1000);
      const { iss = ISSUER, aud = AUDIENCE, ...rest } = claims;
      return new SignJWT(rest)
        .setProtectedHeader({ alg: 'ES256', kid: options.kid ?? 'test-key-1' })
        .setIssuer(iss)
        .setAudience(aud)
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .sign(options.key ?? privateKey);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Configures the project's provider directly (the CLI test covers `identity-provider set`). */
export async function configureProvider(db: Firestore, projectId: string, config: Partial<IdentityProviderConfig> & { jwksUri?: string | null }): Promise<void> {
  const stored: IdentityProviderConfig = { issuer: ISSUER, audience: AUDIENCE, jwksUri: null, jwks: null, updatedAt: Date.now(), ...config };
  await identityProviderRef(db, projectId).set(stored);
}
