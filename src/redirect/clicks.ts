import type { Database } from "bun:sqlite";
import type { GroupCommit } from "../db/group-commit";

/**
 * ClickRecorder counts clicks through the app's group commit (src/db/group-commit.ts): every
 * click of one turn of the event loop is committed in that turn's transaction, and `record()`
 * settles only after that commit. So a redirect is never sent before its click is durable,
 * and one commit serves many requests. A click that fails is rolled back alone and rejected;
 * a failed commit rejects, and keeps, none of its clicks: none is counted twice or unacknowledged.
 */
export class ClickRecorder {
  private readonly update;
  /** Clicks committed together share one time: the clock is read once per batch. */
  private time = { batch: -1, at: 0 };

  constructor(sqlite: Database, private readonly commits: GroupCommit, private readonly clock: () => number) {
    // `.run()`, never `.get()`: a statement left un-reset would pin the WAL (see STACK.md).
    this.update = sqlite.prepare("UPDATE links SET clicks = clicks + 1, last_clicked_at = ?1 WHERE id = ?2");
  }

  /** record counts one click of a link; resolves once it is committed. */
  record(linkId: number): Promise<void> {
    return this.commits.run(() => {
      if (this.time.batch !== this.commits.batches) this.time = { batch: this.commits.batches, at: this.clock() };
      this.update.run(this.time.at, linkId);
    });
  }
}
