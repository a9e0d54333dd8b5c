import { isDeployedFunction } from './deployment';

/**
 * All settings, read and validated once. A bad value fails loudly at start. Secrets are never
 * settings: they are read lazily through the secret store (see secrets/).
 */
export interface Settings {
  /** Region reported by healthz: the deploy region (`TESSERA_REGION`, functions/.env), `local` when run locally. */
  region: string;
  /** The 426 floor check on events (spec: currently switched off). */
  enforceSdkFloor: boolean;
  /** Benchmarks only: report store round trips per request in `X-Tessera-Round-Trips`. */
  exposeRoundTrips: boolean;
  /** Default telemetry retention in days when a project sets none. */
  telemetryRetentionDays: number;
  /**
   * Rail stand-ins for local development and CI (defaults keep deployed behaviour; a deployed
   * function refuses to start with any of them): Apple's
   * online checks (OCSP revocation, expiry at today's date), and the base URLs of Stripe's API,
   * the Play Developer API and the keys that sign Google's Pub/Sub push tokens.
   */
  appleOnlineChecks: boolean;
  stripeApiUrl: URL | null;
  playApiUrl: URL | null;
  googlePushJwksUrl: URL | null;
  /**
   * Local development only (`TESSERA_WEBHOOKS_ALLOW_LOOPBACK`, on under `npm start`): webhook
   * destinations that are loopback only may use `http`. Refused at start on deployed functions.
   */
  webhooksAllowLoopback: boolean;
}

/** What `logs.started` prints: every setting, URLs as text (none of them holds a secret). */
export function describeSettings(settings: Settings): Record<string, unknown> {
  return Object.fromEntries(Object.entries(settings).map(([name, value]) => [name, value instanceof URL ? value.href : value]));
}

function bool(name: string, fallback: boolean): boolean {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new Error(`Setting ${name} must be a boolean (true/false), got '${raw}'.`);
}

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`Setting ${name} must be a positive integer, got '${raw}'.`);
  return value;
}

function httpUrl(name: string): URL | null {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`Setting ${name} must be an http(s) URL, got '${raw}'.`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) throw new Error(`Setting ${name} must be an http(s) URL, got '${raw}'.`);
  return url;
}

/**
 * Settings for the emulator, the local runner and tests only (loopback webhooks, the rails'
 * stand-ins): a deployed function refuses to start with any of them in effect, so a leftover
 * line in functions/.env cannot point production at a fake or switch a check off.
 */
function localOnly<T>(name: string, value: T, inEffect: (value: T) => boolean): T {
  if (inEffect(value) && isDeployedFunction()) throw new Error(`Setting ${name} is for local development only; remove it from the deployed configuration.`);
  return value;
}

export function loadSettings(): Settings {
  return {
    region: process.env.TESSERA_REGION || 'local',
    enforceSdkFloor: bool('TESSERA_ENFORCE_SDK_FLOOR', false),
    exposeRoundTrips: bool('TESSERA_EXPOSE_ROUND_TRIPS', false),
    telemetryRetentionDays: positiveInt('TESSERA_TELEMETRY_RETENTION_DAYS', 90),
    appleOnlineChecks: localOnly('TESSERA_APPLE_ONLINE_CHECKS', bool('TESSERA_APPLE_ONLINE_CHECKS', true), (on) => !on),
    stripeApiUrl: localOnly('TESSERA_STRIPE_API_URL', httpUrl('TESSERA_STRIPE_API_URL'), Boolean),
    playApiUrl: localOnly('TESSERA_PLAY_API_URL', httpUrl('TESSERA_PLAY_API_URL'), Boolean),
    googlePushJwksUrl: localOnly('TESSERA_GOOGLE_PUSH_JWKS_URL', httpUrl('TESSERA_GOOGLE_PUSH_JWKS_URL'), Boolean),
    webhooksAllowLoopback: localOnly('TESSERA_WEBHOOKS_ALLOW_LOOPBACK', bool('TESSERA_WEBHOOKS_ALLOW_LOOPBACK', false), Boolean),
  };
}
