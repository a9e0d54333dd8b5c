import type { androidpublisher_v3 } from '@googleapis/androidpublisher';
import type { Settings } from '../config/settings';
import type { SecretStore } from '../secrets/store';

/**
 * The network edges of the rails, injectable so the same code runs deployed and in tests:
 * deployed they are Apple's revocation service, Stripe's API, Google's push-token keys and the
 * Play Developer API; tests point them at local fakes on 127.0.0.1 and turn Apple's online
 * checks off (the test's own certificate chain has no revocation responder). Local development
 * does the same through settings (`TESSERA_APPLE_ONLINE_CHECKS`, `TESSERA_STRIPE_API_URL`,
 * `TESSERA_PLAY_API_URL`, `TESSERA_GOOGLE_PUSH_JWKS_URL`); explicit overrides win over settings.
 */
export type PlayAuth = androidpublisher_v3.Options['auth'];

/** What reading a rail's provider needs: its network edges and the project's credentials. */
export interface RailReadPorts {
  secrets: SecretStore;
  rails: RailEdges;
}

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

/**
 * A local stand-in of the Play Developer API cannot accept Google's OAuth tokens (minting one
 * needs Google's token endpoint): requests to it carry this API key instead.
 */
export const PLAY_STAND_IN_API_KEY = 'tessera-local-stand-in';

export function createRailEdges(overrides: RailEdgeOverrides = {}, settings?: Pick<Settings, 'appleOnlineChecks' | 'stripeApiUrl' | 'playApiUrl' | 'googlePushJwksUrl'>): RailEdges {
  const stripeUrl = settings?.stripeApiUrl;
  const playUrl = settings?.playApiUrl;
  return {
    apple: { onlineChecks: overrides.appleOnlineChecks ?? settings?.appleOnlineChecks ?? true },
    stripe: { api: overrides.stripeApi ?? (stripeUrl ? stripeApiOf(stripeUrl) : {}) },
    google: {
      pushJwksUrl: settings?.googlePushJwksUrl?.href ?? GOOGLE_PUSH_JWKS_URL,
      pushIssuers: GOOGLE_PUSH_ISSUERS,
      playAuth: playUrl ? async () => PLAY_STAND_IN_API_KEY : serviceAccountAuth,
      ...(playUrl ? { playRootUrl: playUrl.href.endsWith('/') ? playUrl.href : `${playUrl.href}/` } : {}),
      ...overrides.google,
    },
  };
}

/** The Stripe client's protocol, host and port for a base URL such as `http://127.0.0.1:12111`. */
function stripeApiOf(url: URL): RailEdges['stripe']['api'] {
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return { protocol, host: url.hostname, port: url.port ? Number(url.port) : protocol === 'http' ? 80 : 443 };
}

/** Which rail checks this process has switched to stand-ins (logged loudly at start). */
export function railStandIns(edges: RailEdges): string[] {
  const standIns: string[] = [];
  if (!edges.apple.onlineChecks) standIns.push('App Store online checks are OFF (no OCSP revocation, no expiry at today\'s date)');
  if (edges.stripe.api.host) standIns.push(`Stripe API calls go to ${edges.stripe.api.protocol ?? 'https'}://${edges.stripe.api.host}:${edges.stripe.api.port ?? ''}`);
  if (edges.google.playRootUrl) standIns.push(`Play Developer API calls go to ${edges.google.playRootUrl}`);
  if (edges.google.pushJwksUrl !== GOOGLE_PUSH_JWKS_URL) standIns.push(`Google push tokens are verified with keys from ${edges.google.pushJwksUrl}`);
  return standIns;
}
