/**
 * The change feed's marks: triggers write one row of `pending_changes` per changed item in the
 * transaction of each change (drizzle/0011), except a link put in a collection, which the code
 * putting it there marks (`markMemberships`, drizzle/0013), and with it a new link, which is
 * always put in one; `settle` moves a user's marks into `changes` before the feed is read or a
 * tombstone forgotten.
 */
import { eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { pendingChanges } from "../db/schema";

/**
 * markMemberships marks, in the caller's transaction, the links put in collections and those
 * collections (both change: the link's collections, the collection's order), in one statement
 * however many. Every insert into `link_collections` is followed by it (Memberships, the bulk
 * action, the trash); triggers did this once, at ~3 µs a row even when they had nothing to do.
 */
export function markMemberships(db: Db, userId: number, linkIds: Iterable<number>, collectionIds: Iterable<number>): void {
  db.$client.query<never, [number, string, string]>(`INSERT OR IGNORE INTO pending_changes (user_id, kind, item_id)
    SELECT ?1, 'link', value FROM json_each(?2) UNION ALL SELECT ?1, 'collection', value FROM json_each(?3)`)
    .run(userId, JSON.stringify([...linkIds]), JSON.stringify([...collectionIds]));
}

/**
 * settle moves a user's pending marks into the feed (one transaction, three statements): each
 * marked item's row is written again at the end of the sequence, in the order they were marked.
 * With `limit`, only that many of the oldest marks (a large backlog can be settled in slices, in
 * order: each slice's rows come after the last one's). With nothing pending it is one indexed read
 * and writes nothing. Returns how many marks it moved.
 */
export function settle(db: Db, userId: number, limit = -1): number {
  const pending = db.select({ userId: pendingChanges.userId }).from(pendingChanges).where(eq(pendingChanges.userId, userId)).limit(1).get();
  if (!pending) return 0;
  return db.transaction(() => {
    const oldest = sql`SELECT rowid FROM pending_changes WHERE user_id = ${userId} ORDER BY rowid LIMIT ${limit}`;
    db.run(sql`DELETE FROM changes WHERE seq IN (
      SELECT c.seq FROM pending_changes AS p JOIN changes AS c ON c.user_id = p.user_id AND c.kind = p.kind AND c.item_id = p.item_id WHERE p.rowid IN (${oldest}))`);
    db.run(sql`INSERT INTO changes (user_id, kind, item_id) SELECT user_id, kind, item_id FROM pending_changes WHERE rowid IN (${oldest}) ORDER BY rowid`);
    return db.delete(pendingChanges).where(sql`rowid IN (${oldest})`).returning({ userId: pendingChanges.userId }).all().length;
  }, { behavior: "immediate" });
}
