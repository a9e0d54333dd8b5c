/** Counts store round trips for one request (reported by the benchmark, never used for logic). */
export class RoundTripCounter {
  count = 0;
  add(n = 1): void {
    this.count += n;
  }
}
