/** Time comes through a Clock so tests can move it (trust windows, buckets, key grace). */
export interface Clock {
  /** Unix milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export const toUnixSeconds = (ms: number): number => Math.floor(ms / 1000);
