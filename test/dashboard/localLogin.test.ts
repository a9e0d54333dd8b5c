/**
 * Guarantees of the local login (pure logic): only this run’s current login token is exchanged, once; a
 * session token is accepted until it expires (12 h) and never after; another run's tokens,
 * tokens of any length and tampered tokens are refused.
 */
import { LocalLogin, SESSION_TTL_MS } from '../../functions/src/local/localLogin';

const now = Date.UTC(2026, 0, 1);

it('exchanges only this run’s login token', () => {
  const login = new LocalLogin();
  expect(login.loginToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
  for (const wrong of ['', 'x', login.loginToken.slice(1), `${login.loginToken}x`, new LocalLogin().loginToken]) expect(login.exchange(wrong, now)).toBeNull();
  const session = login.exchange(login.loginToken, now)!;
  expect(session.sessionToken).toMatch(/^tds_[A-Za-z0-9_-]{43}$/);
  expect(session.expiresAt).toBe(now + SESSION_TTL_MS);
});

it('accepts a session until it expires, and only from the run that issued it', () => {
  const login = new LocalLogin();
  const { sessionToken } = login.exchange(login.loginToken, now)!;
  expect(login.accepts(sessionToken, now)).toBe(true);
  expect(login.accepts(sessionToken, now + SESSION_TTL_MS - 1)).toBe(true);
  expect(login.accepts(sessionToken, now + SESSION_TTL_MS)).toBe(false);
  expect(login.accepts(sessionToken, now)).toBe(false); // an expired session is forgotten
  const other = new LocalLogin();
  const { sessionToken: fresh } = login.exchange(login.loginToken, now)!; // the next link's token
  expect(other.accepts(fresh, now)).toBe(false);
  expect(login.accepts(`${fresh.slice(0, -1)}${fresh.endsWith('A') ? 'B' : 'A'}`, now)).toBe(false);
});

it('spends a login token on its first exchange and offers the next one (regression: a link signed in again)', () => {
  const offered: string[] = [];
  const login = new LocalLogin((next) => offered.push(next));
  const first = login.loginToken;
  expect(login.exchange(first, now)).not.toBeNull();
  expect(login.exchange(first, now)).toBeNull();
  expect(offered).toEqual([login.loginToken]);
  expect(login.loginToken).not.toBe(first);
  expect(login.exchange(login.loginToken, now)).not.toBeNull();
});

it('ends a session at sign-out and only that one', () => {
  const login = new LocalLogin();
  const a = login.exchange(login.loginToken, now)!.sessionToken;
  const b = login.exchange(login.loginToken, now)!.sessionToken;
  login.end(a);
  expect(login.accepts(a, now)).toBe(false);
  expect(login.accepts(b, now)).toBe(true);
});
