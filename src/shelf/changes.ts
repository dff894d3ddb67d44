/**
 * A shelf's change feed: every link and collection of the owner changed since a cursor, each
 * once, as it is now, in the order of their newest changes. Triggers mark each change in its own
 * transaction (`pending_changes`, once per item; drizzle/0011), and a read first moves the
 * owner's marks into `changes`, each item's one row taking the next place in the sequence, so a
 * read sees every change committed before it. A deleted item's row stays as a tombstone until the
 * trash lets the item go, and then the owner's floor rises: a cursor below it is expired
 * (410 CURSOR_EXPIRED) and the client reads everything again.
 */
import { and, asc, desc, eq, gt, inArray, sql } from "drizzle-orm";
import { changeFloors, changes, collections } from "../db/schema";
import { AppError } from "../errors";
import { Rules } from "../rules";
import type { ChangeJson, ChangesJson, CollectionStateJson } from "../contract/changes";
import { toCollectionJson } from "./json";
import { CHANGES_PAGE } from "./limits";
import type { ShelfLinks } from "./links";
import { settle } from "./marks";
import { itemsOf } from "./order";
import type { Owner } from "./scope";

/** The cursor names changes the server no longer remembers: read everything again, without `since`. */
export class CursorExpired extends AppError {
  constructor() {
    super(410, "CURSOR_EXPIRED", "This cursor is older than what the server still remembers: read everything again, without since.");
  }
}


export class ShelfChanges {
  constructor(private readonly owner: Owner, private readonly links: ShelfLinks) {}

  /**
   * page is up to `limit` changes after `since` (from the beginning without it): one indexed
   * read of the sequence, then the changed items as they are now (a deleted one as a tombstone).
   */
  page(since: string | undefined, wanted?: number): ChangesJson {
    const { db, user } = this.owner;
    const rules = new Rules();
    const limit = rules.pageLimit(wanted, CHANGES_PAGE);
    // A cursor is what `cursor` wrote: decimal digits.
    if (since !== undefined && !/^\d{1,15}$/.test(since)) rules.fail("/since", "Expected the cursor of a previous answer");
    rules.check();
    const after = since === undefined ? 0 : Number(since);
    settle(db, user.id);
    if (since !== undefined) this.checkFloor(after);
    const rows = db.select().from(changes)
      .where(and(eq(changes.userId, user.id), gt(changes.seq, after)))
      .orderBy(asc(changes.seq)).limit(limit + 1).all();
    const shown = rows.slice(0, limit);
    const linkIds = shown.filter((row) => row.kind === "link").map((row) => row.itemId);
    const links = new Map(this.links.byIds(linkIds).map((link) => [link.id, link]));
    const states = this.collectionStates(shown.filter((row) => row.kind === "collection").map((row) => row.itemId));
    const list = shown.map((row): ChangeJson => {
      if (row.kind === "link") {
        const link = links.get(row.itemId);
        return link ? { kind: "link", id: row.itemId, deleted: false, link } : { kind: "link", id: row.itemId, deleted: true };
      }
      const collection = states.get(row.itemId);
      return collection ? { kind: "collection", id: row.itemId, deleted: false, collection } : { kind: "collection", id: row.itemId, deleted: true };
    });
    return { changes: list, cursor: String(shown.at(-1)?.seq ?? after), more: rows.length > limit };
  }

  /**
   * latest is the cursor of the feed's end now, after settling the marks: a client that has just
   * read everything (`GET /api/v1/collections`) follows the feed from there, without reading it
   * from the beginning.
   */
  latest(): string {
    const { db, user } = this.owner;
    settle(db, user.id);
    const row = db.select({ seq: changes.seq }).from(changes).where(eq(changes.userId, user.id)).orderBy(desc(changes.seq)).limit(1).get();
    return String(Math.max(row?.seq ?? 0, this.floor()));
  }

  /** floor is the owner's oldest cursor still followed: below it, CursorExpired. */
  private floor(): number {
    const { db, user } = this.owner;
    return db.select({ seq: changeFloors.seq }).from(changeFloors).where(eq(changeFloors.userId, user.id)).get()?.seq ?? 0;
  }

  /** checkFloor throws CursorExpired when a cursor is below the owner's floor (the marks settled first). */
  private checkFloor(after: number): void {
    if (after < this.floor()) throw new CursorExpired();
  }

  /**
   * changedSince says whether any of those links or collections of the owner changed after the
   * cursor `since` (a cursor the feed wrote: checked by the caller), deleted ones included. The
   * owner's marks are settled first, so every change committed before is seen; inside a write's
   * transaction nothing can land between this and the write. Below the floor: CursorExpired.
   */
  changedSince(since: number, items: { links: readonly number[]; collections: readonly number[] }): boolean {
    const { db, user } = this.owner;
    settle(db, user.id);
    this.checkFloor(since);
    if (items.links.length === 0 && items.collections.length === 0) return false;
    const named = (kind: "link" | "collection", ids: readonly number[]) =>
      sql`(${changes.kind} = ${kind} AND ${changes.itemId} IN (SELECT value FROM json_each(${JSON.stringify([...new Set(ids)])})))`;
    return db.select({ seq: changes.seq }).from(changes)
      .where(and(eq(changes.userId, user.id), gt(changes.seq, since), sql`(${named("link", items.links)} OR ${named("collection", items.collections)})`))
      .limit(1).get() !== undefined;
  }

  /** collectionStates are those of `ids` that are the owner's collections, each as the feed gives it (with its order, without its links). */
  private collectionStates(ids: readonly number[]): Map<number, CollectionStateJson> {
    const states = new Map<number, CollectionStateJson>();
    if (ids.length === 0) return states;
    const { db, user } = this.owner;
    for (const row of db.select().from(collections).where(and(eq(collections.userId, user.id), inArray(collections.id, [...ids]))).all()) {
      const order = itemsOf(this.owner, row.id).map(({ kind, id }) => ({ kind, id }));
      const { links: _, ...state } = toCollectionJson(row, user, [], order);
      states.set(row.id, state);
    }
    return states;
  }
}
