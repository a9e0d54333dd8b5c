/**
 * The two partitions. Keys carry `test` / `live`; request and response bodies speak
 * `sandbox` / `production`. Storage paths use the key marker.
 */
export type Env = 'test' | 'live';
export type WireEnv = 'sandbox' | 'production';

export const ENVS: readonly Env[] = ['test', 'live'];

export const toWireEnv = (env: Env): WireEnv => (env === 'live' ? 'production' : 'sandbox');

export function isEnv(value: unknown): value is Env {
  return value === 'test' || value === 'live';
}

export function isWireEnv(value: unknown): value is WireEnv {
  return value === 'sandbox' || value === 'production';
}
