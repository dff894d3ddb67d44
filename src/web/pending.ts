/** What Pending holds for one key. */
interface Entry<T> {
  userId: number;
  value: T;
  bytes: number;
  expiresAt: number;
}

export interface PendingOptions<T> {
  /** How long a value waits. */
  ttlMs: number;
  /** How many values may wait at once, all users together (the oldest are dropped first). */
  maxEntries: number;
  /** How many bytes (as `sizeOf` counts them) may wait at once; a single value larger than this still fits, alone. */
  maxBytes?: number;
  sizeOf?: (value: T) => number;
}

/**
 * Pending keeps a value in memory for a few minutes under a random key bound to one user: the
 * post/redirect/get pattern for what must not go into a URL, a cookie or the database (a new
 * API token shown once, an uploaded bookmarks file waiting for its import to be confirmed).
 * Only the same user can read a key; for anyone else it does not exist. Memory stays bounded:
 * a new value first pushes out expired ones, then the oldest, until it fits the count and
 * byte limits. A restart forgets everything.
 */
export class Pending<T> {
  private entries = new Map<string, Entry<T>>();
  private bytes = 0;

  constructor(private readonly options: PendingOptions<T>) {}

  /** put stores a value for a user and returns its new key. */
  put(userId: number, value: T, now: number): string {
    const key = crypto.randomUUID();
    this.store(key, userId, value, now);
    return key;
  }

  /** get reads the user's value without removing it. */
  get(key: unknown, userId: number, now: number): T | undefined {
    const entry = this.entryOf(key, userId, now);
    return entry?.value;
  }

  /** take reads the user's value and removes it, so it is seen once. */
  take(key: unknown, userId: number, now: number): T | undefined {
    const entry = this.entryOf(key, userId, now);
    if (entry) this.remove(key as string);
    return entry?.value;
  }

  /** replace puts a new value under the user's existing key, waiting afresh; false when the key is gone. */
  replace(key: unknown, userId: number, value: T, now: number): boolean {
    if (!this.entryOf(key, userId, now)) return false;
    this.remove(key as string);
    this.store(key as string, userId, value, now);
    return true;
  }

  private store(key: string, userId: number, value: T, now: number): void {
    const bytes = this.options.sizeOf?.(value) ?? 0;
    const maxBytes = this.options.maxBytes ?? Infinity;
    for (const [old, entry] of this.entries) {
      const full = this.entries.size >= this.options.maxEntries || this.bytes + bytes > maxBytes;
      // Map keeps insertion order: expired entries anywhere go, and the oldest ones while it is full.
      if (entry.expiresAt <= now || full) this.remove(old);
    }
    this.entries.set(key, { userId, value, bytes, expiresAt: now + this.options.ttlMs });
    this.bytes += bytes;
  }

  /** entryOf finds a live entry of this user; an expired one is dropped on the way. */
  private entryOf(key: unknown, userId: number, now: number): Entry<T> | undefined {
    if (typeof key !== "string") return undefined;
    const entry = this.entries.get(key);
    if (!entry || entry.userId !== userId) return undefined;
    if (entry.expiresAt <= now) {
      this.remove(key);
      return undefined;
    }
    return entry;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.bytes -= entry.bytes;
    this.entries.delete(key);
  }
}
