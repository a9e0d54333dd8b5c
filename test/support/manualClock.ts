import type { Clock } from '../../functions/src/clock';

/** A clock that only moves when told to (trust windows, buckets, key grace, retries). */
export class ManualClock implements Clock {
  constructor(private current = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.current;
  }
  set(ms: number): void {
    this.current = ms;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}
