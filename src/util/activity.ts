/**
 * Work of one kind under way in this process (uploads), for background work that gives way to it:
 * the thumbnailer asks whether any is in flight or ended a moment ago.
 */
export class Activity {
  private inFlight = 0;
  private lastEnd = Number.NEGATIVE_INFINITY;

  /** One piece of work begins; call the answer once when it ends, however it ends. */
  begin(): () => void {
    this.inFlight++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight--;
      this.lastEnd = performance.now();
    };
  }

  /** Work is in flight, or the last piece ended less than `quietMs` ago (a client's next one is usually on its way). */
  busy(quietMs: number): boolean {
    return this.inFlight > 0 || performance.now() - this.lastEnd < quietMs;
  }
}
