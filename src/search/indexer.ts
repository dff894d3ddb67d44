/**
 * The server's background indexing of new links and saved pages. A write marks its link
 * (deferIndexing) in its own transaction, which wakes the indexer watching the database; the
 * indexer indexes what is marked a little later (`delayMillis`), all of it in one transaction
 * when it can: under a steady stream of writes, each of its transactions takes the marks of the
 * last 50 ms, hundreds of links. Each transaction that writes to the index makes it write a
 * segment and later merge it, so this is far cheaper than indexing inside each group commit:
 * ~12 µs a link in transactions of 1,000 against ~50 µs in the group commit's batches of ~10
 * (new links under load, measured here), and the commit a request waits for carries none of
 * it. A search indexes whatever is still marked before it looks, so it always sees every link
 * stored; a mark is in the database, so what the process did not get to is indexed after the
 * next start.
 */
import type { LogSink } from "../request/log";
import { indexPendingInSlices, watchMarks } from "../fulltext/index-text";

type Db = Parameters<typeof indexPendingInSlices>[0];

export const INDEXER_TIMING = {
  /** After the first wake, the indexer waits this long for more writes to index together. */
  delayMillis: 50,
  /** A transaction of the indexer takes at most this many links ... */
  sliceLinks: 1000,
  /** ... and no more once it has run this long; the event loop runs between transactions. */
  sliceMillis: 20,
  /** After a failure (the disk full, say), the next try waits this long. */
  retryMillis: 5000,
};

export class SearchIndexer {
  /** The pass that is due or running, with its timer while it is due. */
  private next: { done: Promise<void>; settle: () => void; timer?: ReturnType<typeof setTimeout> } | undefined;
  /**
   * Woken while a pass ran: another pass follows it, `delayMillis` later. A mark made between
   * the pass's slices is taken by its next slice; this catches one made after its last read.
   */
  private again = false;
  /** After a failure, no pass before this moment (`performance.now()`, which never steps back). */
  private retryAt = 0;
  private stopped = false;
  private readonly unwatch: () => void;

  /** The indexer watches `db` from now on: every link marked there (deferIndexing) wakes it, and it starts with what is marked already. */
  constructor(
    private readonly db: Db,
    private readonly log: LogSink,
    private readonly timing = INDEXER_TIMING,
  ) {
    this.unwatch = watchMarks(db, () => this.wake());
    // Marks left by an earlier run, the command line (an import) or the migration that made the
    // index (every link stored before search existed) are taken at once, in the background.
    this.wake();
  }

  /** wake: links were marked. A pass starts `delayMillis` from now, unless one is due already. */
  private wake(): void {
    if (this.stopped) return;
    if (this.next && !this.next.timer) {
      this.again = true;
      return;
    }
    if (this.next) return;
    const delay = Math.max(this.timing.delayMillis, this.retryAt - performance.now());
    const { promise, resolve } = Promise.withResolvers<void>();
    const next: NonNullable<SearchIndexer["next"]> = { done: promise, settle: resolve };
    next.timer = setTimeout(async () => {
      next.timer = undefined;
      try {
        await this.pass();
      } finally {
        this.next = undefined;
        next.settle();
        if (this.again) {
          this.again = false;
          this.wake();
        }
      }
    }, delay);
    this.next = next;
  }

  /**
   * pass indexes what is marked, a slice at a time. It goes on at once, after letting the event
   * loop run, only while a slice stops at its limits; otherwise the marks made meanwhile wait for
   * the next pass, `delayMillis` later, so that under a steady stream of writes each transaction
   * takes all of them rather than the last group commit's.
   */
  private async pass(): Promise<void> {
    try {
      await indexPendingInSlices(this.db, this.timing.sliceLinks, this.timing.sliceMillis, () => this.stopped);
    } catch (error) {
      // The next write or search tries again; the marks stay until then.
      this.retryAt = performance.now() + this.timing.retryMillis;
      const message = error instanceof Error ? error.message : String(error);
      try {
        this.log(`linkshelf: indexing saved links for search failed (${message.split("\n", 1)[0]}); the next write tries again, ${this.timing.retryMillis / 1000} s from now at the earliest`);
      } catch {
        // A log that cannot be written changes nothing here.
      }
    }
  }

  /** settled resolves once no pass is due or running (a pass woken during one included). */
  async settled(): Promise<void> {
    while (this.next) await this.next.done;
  }

  /** stop cancels a pass that is due and waits for a running one to end its transaction; what is still marked stays marked. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unwatch();
    const next = this.next;
    if (next?.timer) {
      clearTimeout(next.timer);
      this.next = undefined;
      next.settle();
    }
    await next?.done;
  }
}
