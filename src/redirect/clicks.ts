import type { Database } from "bun:sqlite";

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * ClickRecorder counts clicks with group commit: every click recorded in one turn of the
 * event loop goes into one transaction, run once that turn ends, and each `record()`
 * settles only after the transaction holding its click has committed. So a redirect is
 * never sent before its click is durable, and one commit serves many requests.
 * If the transaction fails it rolls back whole and every waiter rejects: no click of the
 * batch is counted, none is acknowledged, none is counted twice.
 */
export class ClickRecorder {
  private clicks = new Map<number, number>();
  private waiters: Waiter[] = [];
  private scheduled = false;
  private readonly update;
  private readonly applyBatch;

  constructor(sqlite: Database, private readonly clock: () => number) {
    // `.run()`, never `.get()`: a statement left un-reset would pin the WAL (see STACK.md).
    this.update = sqlite.prepare("UPDATE links SET clicks = clicks + ?1, last_clicked_at = ?2 WHERE id = ?3");
    this.applyBatch = sqlite.transaction((clicks: Map<number, number>, now: number) => {
      for (const [linkId, count] of clicks) this.update.run(count, now, linkId);
    });
  }

  /** record counts one click of a link; resolves once it is committed. */
  record(linkId: number): Promise<void> {
    this.clicks.set(linkId, (this.clicks.get(linkId) ?? 0) + 1);
    const settled = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    return settled;
  }

  /** flush commits every click recorded so far, then releases their waiters. */
  flush(): void {
    const clicks = this.clicks;
    const waiters = this.waiters;
    this.clicks = new Map();
    this.waiters = [];
    this.scheduled = false;
    if (waiters.length === 0) return;
    try {
      this.applyBatch.immediate(clicks, this.clock());
    } catch (error) {
      for (const waiter of waiters) waiter.reject(error);
      return;
    }
    for (const waiter of waiters) waiter.resolve();
  }
}
