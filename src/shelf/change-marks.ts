/**
 * The change feed's marks: triggers write one row of `pending_changes` per changed item in the
 * transaction of each change (drizzle/0011), except a link put in a collection, which the one
 * writer of memberships marks (src/shelf/memberships.ts, drizzle/0013), and with it a new link,
 * which is always put in one; `settle` moves a user's marks into `changes` before the feed is
 * read or a tombstone forgotten.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { pendingChanges } from "../db/schema";

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
  const sqlite = db.$client;
  return db.transaction(() => {
    const oldest = "SELECT rowid FROM pending_changes WHERE user_id = ?1 ORDER BY rowid LIMIT ?2";
    sqlite.query<never, [number, number]>(`DELETE FROM changes WHERE rowid IN (
      SELECT c.rowid FROM pending_changes AS p JOIN changes AS c ON c.user_id = p.user_id AND c.kind = p.kind AND c.item_id = p.item_id
      WHERE p.rowid IN (${oldest}))`).run(userId, limit);
    const head = sqlite.query<{ head: number }, [number]>("SELECT head FROM change_floors WHERE user_id = ?1").all(userId)[0]?.head ?? 0;
    const written = sqlite.query<never, [number, number, number]>(`INSERT INTO changes (user_id, seq, kind, item_id)
      SELECT user_id, ?3 + row_number() OVER (ORDER BY rowid), kind, item_id FROM pending_changes WHERE rowid IN (${oldest})`).run(userId, limit, head).changes;
    sqlite.query<never, [number, number]>("INSERT INTO change_floors (user_id, seq, head) VALUES (?1, 0, ?2) ON CONFLICT (user_id) DO UPDATE SET head = excluded.head")
      .run(userId, head + written);
    sqlite.query<never, [number, number]>(`DELETE FROM pending_changes WHERE rowid IN (${oldest})`).run(userId, limit);
    return written;
  }, { behavior: "immediate" });
}
