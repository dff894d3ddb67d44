/**
 * The change feed's marks: triggers write one row of `pending_changes` per changed item in the
 * transaction of each change (drizzle/0011), except a link put in a collection, which the one
 * writer of memberships marks (src/shelf/memberships.ts, drizzle/0013), and with it a new link,
 * which is always put in one; `settle` moves a user's marks into `changes` before the feed is
 * read or a tombstone forgotten.
 */
import { and, eq, gt, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { changeFloors, changes, pendingChanges } from "../db/schema";

/**
 * settle moves a user's pending marks into the feed (one transaction): each marked item's row is
 * written again at the end of the user's own sequence, in the order they were marked, taking the
 * places after the user's `head` (the last place handed out, kept in `change_floors`, so that a
 * place is never handed out twice, even when the row that had it is gone). With `limit`, only
 * that many of the oldest marks (a large backlog can be settled in slices, in order: each
 * slice's rows come after the last one's). With nothing pending it is one indexed read and
 * writes nothing. Returns how many marks it moved.
 */
export function settle(db: Db, userId: number, limit = -1): number {
  const pending = db.select({ userId: pendingChanges.userId }).from(pendingChanges).where(eq(pendingChanges.userId, userId)).limit(1).get();
  if (!pending) return 0;
  const oldest = sql`SELECT rowid FROM pending_changes WHERE user_id = ${userId} ORDER BY rowid LIMIT ${limit}`;
  return db.transaction(() => {
    db.run(sql`DELETE FROM changes WHERE rowid IN (
      SELECT c.rowid FROM pending_changes AS p JOIN changes AS c ON c.user_id = p.user_id AND c.kind = p.kind AND c.item_id = p.item_id
      WHERE p.rowid IN (${oldest}))`);
    const head = db.select({ head: changeFloors.head }).from(changeFloors).where(eq(changeFloors.userId, userId)).get()?.head ?? 0;
    db.run(sql`INSERT INTO changes (user_id, seq, kind, item_id)
      SELECT user_id, ${head} + row_number() OVER (ORDER BY rowid), kind, item_id FROM pending_changes WHERE rowid IN (${oldest})`);
    // The places written are the ones after `head`: the last of them is the new head.
    const last = db.select({ seq: sql<number | null>`max(${changes.seq})` }).from(changes).where(and(eq(changes.userId, userId), gt(changes.seq, head))).get()!.seq;
    const written = last === null ? 0 : last - head;
    db.insert(changeFloors).values({ userId, seq: 0, head: head + written }).onConflictDoUpdate({ target: changeFloors.userId, set: { head: head + written } }).run();
    db.run(sql`DELETE FROM pending_changes WHERE rowid IN (${oldest})`);
    return written;
  }, { behavior: "immediate" });
}
