import type { androidpublisher_v3 } from '@googleapis/androidpublisher';

/**
 * The network edges of the rails, injectable so the same code runs deployed and in tests:
 * deployed they are Apple's revocation service, Stripe's API, Google's push-token keys and the
 * Play Developer API; tests point them at local fakes on 127.0.0.1 and turn Apple's online
 * checks off (the test's own certificate chain has no revocation responder).
 */
export type PlayAuth = androidpublisher_v3.Options['auth'];

export interface RailEdges {
  apple: {
    /** OCSP revocation checks and expiry at the current date (Apple's verifier option). */
    onlineChecks: boolean;
  };
  stripe: {
    /** Stripe API endpoint overrides (tests: a local fake); empty deployed. */
    api: { host?: string; port?: number; protocol?: 'http' | 'https' };
  };
  google: {
    /** Keys that sign Pub/Sub push tokens (Google's OAuth2 certificates). */
    pushJwksUrl: string;
    pushIssuers: string[];
    /** Play Developer API base (tests: a local fake); undefined deployed. */
    playRootUrl?: string;
    /** Credentials for the Play Developer API from the service-account JSON of the secret store. */
    playAuth: (serviceAccountJson: string) => Promise<PlayAuth>;
  };
}

export interface RailEdgeOverrides {
  appleOnlineChecks?: boolean;
  stripeApi?: RailEdges['stripe']['api'];
  google?: Partial<RailEdges['google']>;
}

export const GOOGLE_PUSH_JWKS_URL = 'https://www.googleapis.com/oauth2/v3/certs';
export const GOOGLE_PUSH_ISSUERS = ['https://accounts.google.com', 'accounts.google.com'];
export const ANDROID_PUBLISHER_SCOPE = 'https://www.googleapis.com/auth/androidpublisher';

/** Service-account credentials, exchanged for an access token by Google's own auth library. */
export async function serviceAccountAuth(serviceAccountJson: string): Promise<PlayAuth> {
  const credentials = JSON.parse(serviceAccountJson) as { client_email?: string; private_key?: string };
  // Loaded on first use: the Google API client is large and only the Play webhook needs it.
  const { auth } = await import('@googleapis/androidpublisher');
  return new auth.GoogleAuth({ credentials, scopes: [ANDROID_PUBLISHER_SCOPE] });
}

export function createRailEdges(overrides: RailEdgeOverrides = {}): RailEdges {
  return {
    apple: { onlineChecks: overrides.appleOnlineChecks ?? true },
    stripe: { api: overrides.stripeApi ?? {} },
    google: {
      pushJwksUrl: GOOGLE_PUSH_JWKS_URL,
      pushIssuers: GOOGLE_PUSH_ISSUERS,
      playAuth: serviceAccountAuth,
      ...overrides.google,
    },
  };
}
