import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { Agent } from 'node:https';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { SignJWT } from 'jose';
import { KJUR } from 'jsrsasign';
import { firebaseIdTokenVerifier, type OperatorTokenVerifier } from '../../functions/src/dashboard/firebaseTokens';

/**
 * Firebase Authentication, stood in at the network edge only: an RS256 key pair of the test's
 * own, its self-signed certificate served on loopback in the shape of Google's
 * `securetoken@system.gserviceaccount.com` certificate list, and a firebase-admin app whose
 * `httpAgent` connects there. firebase-admin's real `verifyIdToken` then checks every token
 * (signature, kid, algorithm, issuer, audience, expiry, subject) — nothing is skipped.
 */
export const FIREBASE_TEST_PROJECT = 'tessera-dashboard-test';

interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  certPem: string;
}

function signingKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const now = Date.now();
  const utc = (ms: number): string => new Date(ms).toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z';
  const cert = new KJUR.asn1.x509.Certificate({
    version: 3,
    serial: { int: 7 },
    issuer: { str: '/CN=securetoken.system.gserviceaccount.com' },
    subject: { str: '/CN=securetoken.system.gserviceaccount.com' },
    notbefore: utc(now - 86_400_000),
    notafter: utc(now + 86_400_000),
    sbjpubkey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    sigalg: 'SHA256withRSA',
    cakey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  } as never);
  return { kid: randomUUID().replace(/-/g, ''), privateKey, certPem: cert.getPEM() };
}

/** Sends every connection to the loopback certificate server, whatever host the URL names. */
class LoopbackAgent extends Agent {
  constructor(private readonly port: number) {
    super({ keepAlive: false });
  }
  override createConnection(): Socket {
    return connect(this.port, '127.0.0.1');
  }
}

export interface TokenClaims {
  email?: string;
  emailVerified?: boolean;
  uid?: string;
  audience?: string;
  issuer?: string;
  expiresInSeconds?: number;
  /** When the user signed in (`auth_time`, Unix seconds); default 10 s ago. */
  authTime?: number;
  /** Sign with a key the certificate server does not publish (a forgery). */
  forged?: boolean;
}

export class FirebaseAuthStandIn {
  private readonly published = signingKey();
  private readonly forger = signingKey();
  private server: Server | null = null;
  verifier!: OperatorTokenVerifier;
  certificateRequests = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      this.certificateRequests += 1;
      if (!req.url?.includes('securetoken@system.gserviceaccount.com')) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=3600' });
      res.end(JSON.stringify({ [this.published.kid]: this.published.certPem }));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.verifier = firebaseIdTokenVerifier({ appName: `dashboard-test-${port}`, projectId: FIREBASE_TEST_PROJECT, httpAgent: new LoopbackAgent(port) });
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** An ID token as Firebase Authentication issues them (RS256, `kid` of a published certificate). */
  async token(claims: TokenClaims = {}): Promise<string> {
    const key = claims.forged ? this.forger : this.published;
    const now = Math.floor(Date.now() / 1000);
    const uid = claims.uid ?? `uid_${randomUUID().slice(0, 8)}`;
    return new SignJWT({
      email: claims.email ?? 'admin@example.com',
      email_verified: claims.emailVerified ?? true,
      auth_time: claims.authTime ?? now - 10,
      firebase: { identities: { email: [claims.email ?? 'admin@example.com'] }, sign_in_provider: 'password' },
    })
      .setProtectedHeader({ alg: 'RS256', kid: this.published.kid, typ: 'JWT' })
      .setIssuer(claims.issuer ?? `https://securetoken.google.com/${FIREBASE_TEST_PROJECT}`)
      .setAudience(claims.audience ?? FIREBASE_TEST_PROJECT)
      .setSubject(uid)
      .setIssuedAt(now - 10)
      .setExpirationTime(now + (claims.expiresInSeconds ?? 3600))
      .sign(key.privateKey);
  }
}
