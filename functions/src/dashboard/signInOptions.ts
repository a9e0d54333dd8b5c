import { isFunctionsEmulator } from '../config/deployment';

/**
 * How the page signs in here. Under the emulator suite the functions emulator tells its
 * functions where the Auth emulator is (`FIREBASE_AUTH_EMULATOR_HOST`), and the page must send
 * its Identity Toolkit calls there instead of Google's hosts; deployed, the variable is never
 * set and the page uses real Firebase Authentication.
 */
export interface SignInOptions {
  /** `http://host:port` of the Auth emulator, or null (real Firebase Authentication). */
  authEmulator: string | null;
}

export function signInOptions(environment: Record<string, string | undefined> = process.env): SignInOptions {
  const host = environment.FIREBASE_AUTH_EMULATOR_HOST;
  const emulated = isFunctionsEmulator(environment);
  return { authEmulator: emulated && host && /^[A-Za-z0-9.:[\]-]+$/.test(host) ? `http://${host}` : null };
}
