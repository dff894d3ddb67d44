export interface WindowState {
  /** Hits counted in the current window, this one included. */
  count: number;
  /** When the current window ends (ms since the epoch). */
  resetAt: number;
}

interface Slot extends WindowState {
  key: string;
}

/**
 * FixedWindowCounter counts hits per key in fixed windows, in memory, with a hard cap on
 * the number of keys: expired windows are swept as new ones start, and when every key is
 * still live the oldest window is dropped, so a flood of distinct keys cannot grow it.
 */
export class FixedWindowCounter {
  private readonly windows = new Map<string, Slot>();
  /**
   * Every window in the order it started, which is the order they end (all are equally long),
   * read from `head`. The Map's own order would say the same, but JavaScriptCore skips the
   * Map's deleted entries each time an iteration starts from its front, which made every hit
   * of a flood of new keys cost up to ~150 µs; a queue with a moving head is O(1) per hit.
   */
  private queue: Slot[] = [];
  private head = 0;

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
    if (this.windows.size >= this.maxKeys) this.dropOldest();
    const window: Slot = { key, count: 1, resetAt: now + this.windowMs };
    this.windows.set(key, window);
    this.queue.push(window);
    return window;
  }

  /**
   * release takes back one hit of a window `hit` returned, while it is still the key's window:
   * an attempt counted before its outcome was known that turned out not to count.
   */
  release(key: string, window: WindowState): void {
    if (this.windows.get(key) === window && window.count > 0) window.count--;
  }

  /** Sweeping stops at the first live window: all later ones end later. Amortized O(1) per hit. */
  private dropExpired(now: number): void {
    while (this.head < this.queue.length && this.queue[this.head]!.resetAt <= now) this.forget(this.queue[this.head++]!);
    this.compact();
  }

  private dropOldest(): void {
    while (this.head < this.queue.length && !this.forget(this.queue[this.head++]!));
    this.compact();
  }

  /** forget removes a queued window from the map unless its key has started a newer one since. */
  private forget(slot: Slot): boolean {
    if (this.windows.get(slot.key) !== slot) return false;
    this.windows.delete(slot.key);
    return true;
  }

  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }
}
