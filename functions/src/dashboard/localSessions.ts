/** Session tokens of the local stack's sign-in start with this (Firebase ID tokens never do). */
export const SESSION_PREFIX = 'tds_';

/**
 * The local stack's one-time sign-in link (`npm start`), as the operator gate uses it: the
 * implementation lives in local/localLogin.ts and is plugged in only by the local runner (and
 * the tests), so the deployed authenticator carries no local sign-in of its own.
 */
export interface LocalSessions {
  /** A session for the current login token (which is then spent), or null. */
  exchange(loginToken: string, now: number): { sessionToken: string; expiresAt: number } | null;
  /** Whether a session token was issued by this run and is still open. */
  accepts(sessionToken: string, now: number): boolean;
  /** Sign-out. */
  end(sessionToken: string): void;
}
