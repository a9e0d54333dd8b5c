/**
 * The identify velocity cap: more than 30 identify calls for one userId within 60 s → 429.
 *
 * Two layers:
 * - Authoritative, shared across instances: the recent call times live on the userId's own
 *   identity-index document (`developer:{userId}`), which identify already reads and writes
 *   inside its transaction. The cap costs no extra round trip and no extra document, and it
 *   creates no hot spot: each user has their own document, and once a user is capped the
 *   rejected calls write nothing, so one document sees at most 30 writes a minute.
 * - A per-instance sliding window in memory, consulted first, rejects a hammering client
 *   without touching the store at all. It can only be stricter than the shared record when an
 *   instance has seen every call; across instances the shared record decides.
 */
import { BoundedMap } from '../boundedMap';

export const VELOCITY_LIMIT = 30;
export const VELOCITY_WINDOW_MS = 60_000;

/** Pure window arithmetic on a list of call times (ms). */
export function admitCall(times: readonly number[], now: number, limit = VELOCITY_LIMIT, windowMs = VELOCITY_WINDOW_MS): { admitted: boolean; times: number[]; retryAfterMs: number } {
  const recent = times.filter((t) => t > now - windowMs && t <= now);
  if (recent.length >= limit) {
    const oldest = Math.min(...recent);
    return { admitted: false, times: recent, retryAfterMs: Math.max(1, oldest + windowMs - now) };
  }
  return { admitted: true, times: [...recent, now], retryAfterMs: 0 };
}

/** Thrown inside the identify transaction (so nothing is written) when the cap is reached. */
export class VelocityExceeded extends Error {
  constructor(readonly retryAfterMs: number) {
    super('identify velocity cap reached');
    this.name = 'VelocityExceeded';
  }
}

const MAX_TRACKED_USERS = 10_000;

/** The in-memory layer: per instance, bounded in size (oldest entries evicted first). */
export class VelocityWindow {
  private readonly calls = new BoundedMap<string, number[]>(MAX_TRACKED_USERS);

  constructor(
    private readonly limit = VELOCITY_LIMIT,
    private readonly windowMs = VELOCITY_WINDOW_MS,
  ) {}

  /** Records the call and says whether it is within the cap. */
  admit(key: string, now: number): { admitted: boolean; retryAfterMs: number } {
    const decision = admitCall(this.calls.get(key) ?? [], now, this.limit, this.windowMs);
    this.calls.set(key, decision.times);
    return { admitted: decision.admitted, retryAfterMs: decision.retryAfterMs };
  }
}
