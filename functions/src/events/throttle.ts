import { MINUTE } from '../clock';
import type { NormalisedEvent } from './validation';

/**
 * Throttling of an event batch: one event costs one token of the `events` bucket.
 *
 * When the bucket grants fewer tokens than the batch has events, the first `granted` events (in
 * request order) land. Of the rest, an error event (one with a valid `level`) still lands when
 * its fingerprint has not passed yet in the current minute (a minute is `floor(ms / 60 000)`);
 * every other event is dropped, and counted.
 *
 * "Has not passed yet" is decided in two layers so that no document becomes hot:
 * - this instance remembers the fingerprints that passed (or were seen passed) per minute
 *   (`ErrorPassMemory`), so a flood of one error costs no store read after the first;
 * - fingerprints it has not seen this minute are checked against their marker documents
 *   (`errorPasses/{fingerprint}_{minute}`, one per fingerprint per minute, never updated twice),
 *   read in the same round trip as the key check, and a passing event writes its marker in the
 *   batch's single commit.
 * Two instances that check the same new fingerprint in the same few milliseconds may both let
 * one event through: at most one per fingerprint per minute per instance, never more.
 */
export const minuteOf = (ms: number): number => Math.floor(ms / MINUTE);

export interface ThrottlePlan {
  /** Events paid for by the bucket. */
  paid: NormalisedEvent[];
  /** Error events beyond the grant whose fingerprint this instance has not seen pass this minute. */
  candidates: NormalisedEvent[];
  /** Events that cannot land whatever the store says. */
  dropped: NormalisedEvent[];
}

export function planThrottle(events: NormalisedEvent[], granted: number, memory: ErrorPassMemory, scopeKey: string, minute: number): ThrottlePlan {
  const paid = events.slice(0, granted);
  const candidates: NormalisedEvent[] = [];
  const dropped: NormalisedEvent[] = [];
  const claimed = new Set<string>();
  for (const event of events.slice(granted)) {
    const fingerprint = event.fingerprint;
    if (fingerprint && !claimed.has(fingerprint) && !memory.hasPassed(scopeKey, fingerprint, minute)) {
      claimed.add(fingerprint);
      candidates.push(event);
    } else {
      dropped.push(event);
    }
  }
  return { paid, candidates, dropped };
}

/**
 * Per-instance memory of the fingerprints that passed, per project, environment and minute.
 * Only the current and previous minute are kept, so memory is bounded by the distinct error
 * fingerprints of two minutes.
 */
export class ErrorPassMemory {
  private readonly passed = new Map<number, Set<string>>();

  hasPassed(scopeKey: string, fingerprint: string, minute: number): boolean {
    return this.passed.get(minute)?.has(`${scopeKey}/${fingerprint}`) ?? false;
  }

  remember(scopeKey: string, fingerprint: string, minute: number): void {
    for (const known of this.passed.keys()) if (known < minute - 1) this.passed.delete(known);
    let set = this.passed.get(minute);
    if (!set) {
      set = new Set();
      this.passed.set(minute, set);
    }
    set.add(`${scopeKey}/${fingerprint}`);
  }
}
