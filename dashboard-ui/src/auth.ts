import { call, session, setTokenRefresher } from './api';

/**
 * Signing in. Under the fast runner (`npm start`): the link it printed carries `#login=<token>`,
 * exchanged once for a session token. Everywhere else, Firebase Authentication's email-link
 * sign-in through its REST API (no SDK download): the Hosting-reserved `/__/firebase/init.json`
 * gives the web API key, and the dashboard API says whether Identity Toolkit is the Auth
 * emulator (the emulator suite) or Google's hosts (deployed). The ID token it returns is what
 * the dashboard API verifies with firebase-admin. Sign-out ends the session on the server too.
 */
export async function consumeLocalLoginLink(): Promise<boolean> {
  const match = /(?:^#|&)login=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (!match) return false;
  history.replaceState(null, '', location.pathname + location.search); // the link's token leaves the address bar
  const result = await call<{ sessionToken: string }>('POST', '/session/local', { loginToken: match[1] });
  session.set(result.sessionToken);
  return true;
}

interface FirebaseConfig {
  apiKey: string;
  /** Identity Toolkit and Secure Token base URLs: Google's, or the Auth emulator's. */
  identityToolkit: string;
  secureToken: string;
  emulator: boolean;
}

const EMAIL_KEY = 'tessera.dashboard.email';
const REFRESH_KEY = 'tessera.dashboard.refresh';
const EXPIRY_KEY = 'tessera.dashboard.expiresAt';

let configOnce: Promise<FirebaseConfig | null> | undefined;
function firebaseConfig(): Promise<FirebaseConfig | null> {
  configOnce ??= (async () => {
    try {
      const res = await fetch('/__/firebase/init.json', { credentials: 'omit' });
      if (!res.ok) return null;
      const { apiKey } = (await res.json()) as { apiKey: string };
      const { authEmulator } = await call<{ authEmulator: string | null }>('GET', '/session/options');
      return authEmulator
        ? { apiKey, identityToolkit: `${authEmulator}/identitytoolkit.googleapis.com`, secureToken: `${authEmulator}/securetoken.googleapis.com`, emulator: true }
        : { apiKey, identityToolkit: 'https://identitytoolkit.googleapis.com', secureToken: 'https://securetoken.googleapis.com', emulator: false };
    } catch {
      return null;
    }
  })();
  return configOnce;
}

/** Whether sign-in goes through the Auth emulator (the page then says where the link is printed). */
export async function authEmulated(): Promise<boolean> {
  return (await firebaseConfig())?.emulator === true;
}

export async function firebaseAvailable(): Promise<boolean> {
  return (await firebaseConfig()) !== null;
}

export async function sendEmailLink(email: string): Promise<void> {
  const config = await firebaseConfig();
  if (!config) throw new Error('Firebase Authentication is not configured for this site.');
  const res = await fetch(`${config.identityToolkit}/v1/accounts:sendOobCode?key=${encodeURIComponent(config.apiKey)}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ requestType: 'EMAIL_SIGNIN', email, continueUrl: `${location.origin}/dashboard/`, canHandleCodeInApp: true }),
  });
  if (!res.ok) throw new Error('Firebase Authentication refused to send the sign-in link.');
  localStorage.setItem(EMAIL_KEY, email);
}

/** Completes an email-link sign-in when the page was opened from the link. */
export async function completeEmailLink(): Promise<boolean> {
  const params = new URLSearchParams(location.search);
  const oobCode = params.get('oobCode');
  if (!oobCode || params.get('mode') !== 'signIn') return false;
  const config = await firebaseConfig();
  const email = localStorage.getItem(EMAIL_KEY);
  if (!config || !email) return false;
  const res = await fetch(`${config.identityToolkit}/v1/accounts:signInWithEmailLink?key=${encodeURIComponent(config.apiKey)}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, oobCode }),
  });
  history.replaceState(null, '', location.pathname);
  if (!res.ok) throw new Error('The sign-in link is no longer valid; ask for a new one.');
  const body = (await res.json()) as { idToken: string; refreshToken: string; expiresIn: string };
  storeFirebaseTokens(body.idToken, body.refreshToken, Number(body.expiresIn));
  return true;
}

function storeFirebaseTokens(idToken: string, refreshToken: string, expiresInSeconds: number): void {
  session.set(idToken);
  sessionStorage.setItem(REFRESH_KEY, refreshToken);
  sessionStorage.setItem(EXPIRY_KEY, String(Date.now() + expiresInSeconds * 1000));
  installRefresher();
}

export function installRefresher(): void {
  if (!sessionStorage.getItem(REFRESH_KEY)) return;
  setTokenRefresher(async () => {
    const expiresAt = Number(sessionStorage.getItem(EXPIRY_KEY) ?? 0);
    if (expiresAt - Date.now() > 60_000) return session.get();
    const config = await firebaseConfig();
    const refreshToken = sessionStorage.getItem(REFRESH_KEY);
    if (!config || !refreshToken) return session.get();
    const res = await fetch(`${config.secureToken}/v1/token?key=${encodeURIComponent(config.apiKey)}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }),
    });
    if (!res.ok) return session.get();
    const body = (await res.json()) as { id_token: string; refresh_token: string; expires_in: string };
    storeFirebaseTokens(body.id_token, body.refresh_token, Number(body.expires_in));
    return body.id_token;
  });
}

/** Forgets the sign-in in this tab (also when the server already ended it). */
export function forgetSignIn(): void {
  session.clear();
  sessionStorage.removeItem(REFRESH_KEY);
  sessionStorage.removeItem(EXPIRY_KEY);
  setTokenRefresher(null);
}

/** Sign-out: the server refuses this session from now on, then the tab forgets it. */
export async function signOut(): Promise<void> {
  try {
    if (session.get()) await call('POST', '/session/sign-out', {});
  } finally {
    forgetSignIn();
  }
}
