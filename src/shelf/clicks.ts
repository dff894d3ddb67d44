import { eq, sql } from "drizzle-orm";
import { preparedQueries, type Db } from "../db/client";
import { links } from "../db/schema";
import type { WriteBatches } from "./types";
import { visibleLinkUrl } from "./visibility";

/** The requests of one batch that open the same link as the same viewer: one decision, one UPDATE. */
interface Opening {
  linkId: number;
  /** The requester's user id; null for anonymous. */
  viewerId: number | null;
  clicks: number;
  /** Set in the batch's transaction when the viewer may open the link: where its requests go. */
  location?: string;
}

/** The openings of one batch of the group commit, and that batch's commit. */
interface ClickBatch {
  /** The group commit's batch count when these openings were first recorded: they go in the next batch. */
  number: number;
  /** By link id for anonymous viewers, `<link>/<viewer>` otherwise. */
  openings: Map<number | string, Opening>;
  committed: Promise<void>;
}

/**
 * ClickRecorder opens links for `GET /l/:id` through the app's group commit
 * (src/db/group-commit.ts). The requests of one turn of the event loop are gathered per link
 * and viewer; in that turn's transaction each is decided once (visibility.ts) and, when
 * visible, its clicks are written as one UPDATE. So a redirect costs no database read of its
 * own, the decision and the click are one read-then-write under the write lock, a redirect is
 * never sent before its click is durable, and one commit serves many requests. If the write or
 * the commit fails, every click of the turn is rolled back and rejected: none is counted
 * twice, none acknowledged uncounted.
 */
/** Built at the first click, not at start-up. */
const clickQueries = preparedQueries((db) => ({
  // `.run()`, never `.get()`: a statement left un-reset would pin the WAL: bun:sqlite's `.get()` on `UPDATE … RETURNING` does not reset it, and the `-wal` file then grows without a checkpoint.
  count: db
    .update(links)
    .set({ clicks: sql`${links.clicks} + ${sql.placeholder("count")}`, lastClickedAt: sql`${sql.placeholder("now")}` })
    .where(eq(links.id, sql.placeholder("linkId")))
    .prepare(),
}));

export class ClickRecorder {
  private batch: ClickBatch | undefined;

  constructor(private readonly db: Db, private readonly commits: WriteBatches, private readonly clock: () => number) {}

  /**
   * open counts one click of a link when the viewer (null: anonymous) may open it, and resolves
   * with its location once that click is committed; undefined when they may not (nothing counted).
   */
  async open(linkId: number, viewerId: number | null): Promise<string | undefined> {
    let batch = this.batch;
    // A batch whose flush has begun (the count moved) takes no more openings: they start the next one.
    if (!batch || batch.number !== this.commits.batches) {
      const openings = new Map<number | string, Opening>();
      batch = this.batch = { number: this.commits.batches, openings, committed: this.commits.run(() => this.apply(openings)) };
    }
    const key = viewerId === null ? linkId : `${linkId}/${viewerId}`;
    let opening = batch.openings.get(key);
    if (!opening) batch.openings.set(key, (opening = { linkId, viewerId, clicks: 0 }));
    opening.clicks++;
    await batch.committed;
    return opening.location;
  }

  /** apply decides one batch's openings and writes their clicks; they share one time, the moment of their commit. */
  private apply(openings: Map<number | string, Opening>): void {
    const now = this.clock();
    const { count } = clickQueries(this.db);
    for (const opening of openings.values()) {
      opening.location = visibleLinkUrl(this.db, opening.linkId, opening.viewerId);
      if (opening.location !== undefined) count.run({ count: opening.clicks, now, linkId: opening.linkId });
    }
  }
}
