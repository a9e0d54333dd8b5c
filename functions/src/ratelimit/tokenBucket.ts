/**
 * Pure token-bucket arithmetic. Tokens refill linearly at `ratePerSec` and accumulate up to
 * `burst`, so an idle bucket can spend a full burst at once.
 */
export interface BucketSpec {
  ratePerSec: number;
  burst: number;
}

export interface BucketState {
  tokens: number;
  updatedAt: number; // ms
}

export function fullBucket(spec: BucketSpec, now: number): BucketState {
  return { tokens: spec.burst, updatedAt: now };
}

export function refill(state: BucketState, spec: BucketSpec, now: number): BucketState {
  const elapsed = Math.max(0, now - state.updatedAt);
  return { tokens: Math.min(spec.burst, state.tokens + (elapsed * spec.ratePerSec) / 1000), updatedAt: Math.max(now, state.updatedAt) };
}

export interface TakeResult {
  taken: number;
  state: BucketState;
}

/** Takes as many whole tokens as are available, up to `want`. */
export function takeUpTo(state: BucketState, spec: BucketSpec, now: number, want: number): TakeResult {
  const current = refill(state, spec, now);
  const taken = Math.max(0, Math.min(want, Math.floor(current.tokens + 1e-9)));
  return { taken, state: { tokens: current.tokens - taken, updatedAt: current.updatedAt } };
}
