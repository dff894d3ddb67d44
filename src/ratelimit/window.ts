export interface WindowState {
  /** Hits counted in the current window, this one included. */
  count: number;
  /** When the current window ends (ms since the epoch). */
  resetAt: number;
}

/**
 * FixedWindowCounter counts hits per key in fixed windows, in memory, with a hard cap on
 * the number of keys: expired windows are swept as new ones start, and when every key is
 * still live the oldest window is dropped, so a flood of distinct keys cannot grow it.
 */
export class FixedWindowCounter {
  private readonly windows = new Map<string, WindowState>();

  constructor(readonly windowMs: number, readonly maxKeys = 100_000) {}

  get size(): number {
    return this.windows.size;
  }

  /** peek returns the key's live window without counting, or undefined. */
  peek(key: string, now: number): WindowState | undefined {
    const window = this.windows.get(key);
    return window && window.resetAt > now ? window : undefined;
  }

  /** hit counts one hit for the key and returns its window. */
  hit(key: string, now: number): WindowState {
    const live = this.peek(key, now);
    if (live) {
      live.count++;
      return live;
    }
    this.windows.delete(key);
    this.dropExpired(now);
    // Every key is live: drop the oldest window, so a flood of new keys cannot grow the map.
    if (this.windows.size >= this.maxKeys) this.windows.delete(this.windows.keys().next().value!);
    const window = { count: 1, resetAt: now + this.windowMs };
    this.windows.set(key, window);
    return window;
  }

  /**
   * A window is (re)inserted when it starts and all windows are equally long, so the map is
   * ordered by `resetAt`: expired windows are always at the front, and sweeping stops at the
   * first live one. Amortized O(1) per hit.
   */
  private dropExpired(now: number): void {
    for (const [key, window] of this.windows) {
      if (window.resetAt > now) return;
      this.windows.delete(key);
    }
  }
}
