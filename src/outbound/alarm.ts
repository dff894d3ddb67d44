/** One wake-up at a time on timers a test may drive by hand: what the background fetcher and the link checker wait with. */

/** Timers the background workers wait with; tests drive them by hand. */
export interface Timers {
  setTimeout(run: () => void, millis: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The process's own timers. */
export const REAL_TIMERS: Timers = {
  setTimeout: (run, millis) => setTimeout(run, millis),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Alarm calls `ring` once at the earliest time it was set for; setting it later than that changes nothing. */
export class Alarm {
  private timer: { handle: unknown; at: number } | undefined;

  constructor(private readonly timers: Timers, private readonly ring: () => void) {}

  /** set wakes at `at` (clock time, `now` being the clock now) unless the alarm is set for earlier already. */
  set(at: number, now: number): void {
    if (this.timer && this.timer.at <= at) return;
    this.clear();
    const handle = this.timers.setTimeout(() => {
      this.timer = undefined;
      this.ring();
    }, Math.max(0, at - now));
    this.timer = { handle, at };
  }

  /** clear calls off the alarm. */
  clear(): void {
    if (this.timer) this.timers.clearTimeout(this.timer.handle);
    this.timer = undefined;
  }
}
