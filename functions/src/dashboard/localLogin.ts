import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { HOUR } from '../clock';

/**
 * The local stack's sign-in (`npm start`): a random login token, valid for that run only,
 * printed as a link. The page exchanges it for a session token that it keeps in
 * sessionStorage and sends as `Authorization: Bearer` — no cookie carries authority, so a
 * cross-site request cannot act for the operator. Sessions live in this process's memory and
 * end with it; only their SHA-256 is held.
 */
export const SESSION_PREFIX = 'tds_';
export const SESSION_TTL_MS = 12 * HOUR;

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

export class LocalLogin {
  readonly loginToken = randomBytes(32).toString('base64url');
  private readonly loginDigest = digest(this.loginToken);
  private readonly sessions = new Map<string, number>();

  /** A new session token when `presented` is this run's login token (constant-time), else null. */
  exchange(presented: string, now: number): { sessionToken: string; expiresAt: number } | null {
    if (!timingSafeEqual(digest(presented), this.loginDigest)) return null;
    const sessionToken = `${SESSION_PREFIX}${randomBytes(32).toString('base64url')}`;
    const expiresAt = now + SESSION_TTL_MS;
    this.sessions.set(digest(sessionToken).toString('hex'), expiresAt);
    return { sessionToken, expiresAt };
  }

  /** Whether the session token was issued by this run and has not expired. */
  accepts(sessionToken: string, now: number): boolean {
    // Looked up by digest: the map key is not the secret itself, and a lookup reveals nothing usable.
    const key = digest(sessionToken).toString('hex');
    const expiresAt = this.sessions.get(key);
    if (expiresAt === undefined) return false;
    if (expiresAt <= now) {
      this.sessions.delete(key);
      return false;
    }
    return true;
  }
}
