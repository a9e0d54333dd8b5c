import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { HOUR } from '../clock';
import { SESSION_PREFIX, type LocalSessions } from '../dashboard/localSessions';

/**
 * The fast local runner's sign-in (`npm start`): a random login token, printed as a link, that
 * signs in once. Exchanging it spends it and mints the next link (the runner prints it), so a
 * link copied from a terminal or a browser's history cannot open a second session. The page
 * keeps the session token in sessionStorage and sends it as `Authorization: Bearer` — no cookie
 * carries authority, so a cross-site request cannot act for the operator. Sessions live in this
 * process's memory (only their SHA-256) and end at sign-out, after 12 h, or with the process.
 */
export const SESSION_TTL_MS = 12 * HOUR;

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();
const newLoginToken = (): string => randomBytes(32).toString('base64url');

export class LocalLogin implements LocalSessions {
  private token = newLoginToken();
  private loginDigest = digest(this.token);
  private readonly sessions = new Map<string, number>();

  /** @param onNewLink told of the next link's token each time one is spent. */
  constructor(private readonly onNewLink?: (loginToken: string) => void) {}

  /** The link's token that signs in now (one use). */
  get loginToken(): string {
    return this.token;
  }

  /** A new session token when `presented` is the current login token (constant-time), which is then spent; else null. */
  exchange(presented: string, now: number): { sessionToken: string; expiresAt: number } | null {
    if (!timingSafeEqual(digest(presented), this.loginDigest)) return null;
    this.token = newLoginToken();
    this.loginDigest = digest(this.token);
    this.onNewLink?.(this.token);
    const sessionToken = `${SESSION_PREFIX}${randomBytes(32).toString('base64url')}`;
    const expiresAt = now + SESSION_TTL_MS;
    this.sessions.set(digest(sessionToken).toString('hex'), expiresAt);
    return { sessionToken, expiresAt };
  }

  /** Whether the session token was issued by this run and has neither expired nor been signed out. */
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

  /** Sign-out: the session token is refused from now on. */
  end(sessionToken: string): void {
    this.sessions.delete(digest(sessionToken).toString('hex'));
  }
}
