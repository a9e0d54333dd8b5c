/**
 * All settings, read and validated once. A bad value fails loudly at start. Secrets are never
 * settings: they are read lazily through the secret store (see secrets/).
 */
export interface Settings {
  /** Region reported by healthz. */
  region: string;
  /** The 426 floor check on events (spec: currently switched off). */
  enforceSdkFloor: boolean;
  /** Benchmarks only: report store round trips per request in `X-Tessera-Round-Trips`. */
  exposeRoundTrips: boolean;
  /** Default telemetry retention in days when a project sets none. */
  telemetryRetentionDays: number;
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

export function loadSettings(): Settings {
  return {
    region: process.env.TESSERA_REGION || process.env.FUNCTION_REGION || 'local',
    enforceSdkFloor: bool('TESSERA_ENFORCE_SDK_FLOOR', false),
    exposeRoundTrips: bool('TESSERA_EXPOSE_ROUND_TRIPS', false),
    telemetryRetentionDays: positiveInt('TESSERA_TELEMETRY_RETENTION_DAYS', 90),
  };
}
