import { AppError } from "../common/errors";

/** The favicon proxy has no free slot for a new lookup: answered 503 with Retry-After, never cached. */
export class FaviconBusy extends AppError {
  constructor(retryAfterSeconds: number) {
    super(503, "BUSY", "The favicon proxy is busy looking up other sites' icons. Try again shortly.", undefined, {
      "Retry-After": String(retryAfterSeconds),
    });
  }
}

/**
 * Slots lets at most `size` tasks run at once. A task that finds every slot taken waits, in
 * order, behind at most `queued` others and for at most `waitMillis`; past either it is
 * refused with FaviconBusy without running. What a lookup holds in memory (a page, an icon)
 * is thus bounded by the slots, whatever the number of requests.
 */
export class Slots {
  private running = 0;
  private readonly waiting: { start: () => void; timer: ReturnType<typeof setTimeout> }[] = [];

  constructor(private readonly size: number, private readonly queued: number, private readonly waitMillis: number) {}

  /** run runs `task` in a slot, waiting for one if need be; throws FaviconBusy when it cannot get one. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running < this.size) this.running++;
    else await this.waitForSlot();
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  /** waitForSlot resolves once a finishing task hands its slot over. */
  private waitForSlot(): Promise<void> {
    const busy = () => new FaviconBusy(Math.max(1, Math.ceil(this.waitMillis / 1000)));
    if (this.waiting.length >= this.queued) return Promise.reject(busy());
    return new Promise((resolve, reject) => {
      const entry = {
        start: resolve,
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(entry), 1);
          reject(busy());
        }, this.waitMillis),
      };
      this.waiting.push(entry);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    if (!next) {
      this.running--;
      return;
    }
    clearTimeout(next.timer);
    next.start();
  }
}
