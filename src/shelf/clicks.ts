import { eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import type { GroupCommit } from "../db/group-commit";
import { links } from "../db/schema";

/** The clicks recorded for one batch of the group commit, and that batch's commit. */
interface ClickBatch {
  /** The group commit's batch count when these clicks were first recorded: they go in the next batch. */
  number: number;
  counts: Map<number, number>;
  committed: Promise<void>;
}

/**
 * ClickRecorder counts clicks through the app's group commit (src/db/group-commit.ts): the
 * clicks of one turn of the event loop are added up per link and written as one write of
 * that turn's transaction (one UPDATE per link clicked, however many clicks), and `record()`
 * settles only after that commit. So a redirect is never sent before its click is durable,
 * and one commit serves many requests. If the write or the commit fails, every click of the
 * turn is rolled back and rejected: none is counted twice, none acknowledged uncounted.
 */
export class ClickRecorder {
  private readonly update;
  private batch: ClickBatch | undefined;

  constructor(db: Db, private readonly commits: GroupCommit, private readonly clock: () => number) {
    // `.run()`, never `.get()`: a statement left un-reset would pin the WAL: bun:sqlite's `.get()` on `UPDATE … RETURNING` does not reset it, and the `-wal` file then grows without a checkpoint.
    this.update = db
      .update(links)
      .set({ clicks: sql`${links.clicks} + ${sql.placeholder("count")}`, lastClickedAt: sql`${sql.placeholder("now")}` })
      .where(eq(links.id, sql.placeholder("linkId")))
      .prepare();
  }

  /** record counts one click of a link; resolves once it is committed. */
  record(linkId: number): Promise<void> {
    let batch = this.batch;
    // A batch whose flush has begun (the count moved) takes no more clicks: they start the next one.
    if (!batch || batch.number !== this.commits.batches) {
      const counts = new Map<number, number>();
      batch = this.batch = { number: this.commits.batches, counts, committed: this.commits.run(() => this.apply(counts)) };
    }
    batch.counts.set(linkId, (batch.counts.get(linkId) ?? 0) + 1);
    return batch.committed;
  }

  /** apply writes one batch's clicks; they share one time, the moment of their commit. */
  private apply(counts: Map<number, number>): void {
    const now = this.clock();
    for (const [linkId, count] of counts) this.update.run({ count, now, linkId });
  }
}
