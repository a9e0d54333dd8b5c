import type { Agent } from 'node:http';
import type { OperatorIdentity } from './model';

/**
 * Deployed sign-in: a Firebase Authentication ID token (Google sign-in or email link),
 * verified by firebase-admin's `verifyIdToken` (RS256 signature against Google's published
 * certificates, issuer and audience of this Firebase project, expiry, subject). Only a verified
 * email is accepted: operators are granted by email.
 */
export interface OperatorTokenVerifier {
  /** The operator the token proves, or a rejection (any reason: malformed, expired, forged, unverified email). */
  verify(idToken: string): Promise<OperatorIdentity>;
}

export class OperatorTokenRejected extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'OperatorTokenRejected';
  }
}

export interface FirebaseVerifierOptions {
  /** A firebase-admin app of its own (tests use one whose `httpAgent` reaches a local certificate server). */
  appName?: string;
  projectId?: string;
  httpAgent?: Agent;
}

export function firebaseIdTokenVerifier(options: FirebaseVerifierOptions = {}): OperatorTokenVerifier {
  let auth: Promise<import('firebase-admin/auth').Auth> | undefined;
  // Loaded on the first operator request: no other function pays for firebase-admin/auth.
  const getAuthOnce = () =>
    (auth ??= (async () => {
      const [{ getApps, initializeApp }, { getAuth }] = await Promise.all([import('firebase-admin/app'), import('firebase-admin/auth')]);
      const name = options.appName;
      const projectId = options.projectId ?? process.env.GCLOUD_PROJECT ?? process.env.GOOGLE_CLOUD_PROJECT;
      const existing = getApps().find((app) => app.name === (name ?? '[DEFAULT]'));
      const app = existing ?? initializeApp({ ...(projectId ? { projectId } : {}), ...(options.httpAgent ? { httpAgent: options.httpAgent } : {}) }, name);
      return getAuth(app);
    })());
  return {
    async verify(idToken) {
      const auth = await getAuthOnce();
      let decoded;
      try {
        decoded = await auth.verifyIdToken(idToken);
      } catch (err) {
        throw new OperatorTokenRejected(err instanceof Error ? err.message : String(err));
      }
      if (typeof decoded.email !== 'string' || decoded.email_verified !== true) throw new OperatorTokenRejected('the token carries no verified email');
      return { email: decoded.email.toLowerCase(), uid: decoded.uid, via: 'firebase', signedInAt: decoded.auth_time * 1000 };
    },
  };
}
