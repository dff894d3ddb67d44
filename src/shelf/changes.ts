/**
 * A shelf's change feed: every link and collection of the owner changed since a cursor, each
 * once, as it is now, in the order of their newest changes. Triggers mark each change in its own
 * transaction (`pending_changes`, once per item; drizzle/0011), and a read first moves the
 * owner's marks into `changes`, each item's one row taking the next place in the owner's own
 * sequence, so a read sees every change committed before it. A deleted item's row stays as a
 * tombstone until the trash lets the item go, and then the owner's floor rises: a cursor below it
 * is expired (410 CURSOR_EXPIRED) and the client reads everything again.
 *
 * A cursor is `<generation>.<place>`: the database's history (src/db/history.ts) and a place in
 * the owner's sequence; clients treat it as opaque. One of another history (the database was
 * restored from a backup), beyond the owner's last place, or written before cursors named their
 * history (plain digits) names no point of this feed: 410 HISTORY_REPLACED, never "no changes".
 */
import { and, asc, eq, gt, inArray, sql } from "drizzle-orm";
import { preparedQueries } from "../db/client";
import { changeFloors, changes, collections, history } from "../db/schema";
import { AppError } from "../common/errors";
import { Rules } from "../common/rules";
import type { ChangeJson, ChangesJson, CollectionStateJson } from "../contract/changes";
import { toCollectionJson } from "./json";
import { CHANGES_PAGE } from "./limits";
import type { ShelfLinks } from "./links";
import { settle } from "./change-marks";
import { itemsOf } from "./order";
import type { Owner } from "./scope";

/** What every read of the feed runs, built once per database. */
const feedQueries = preparedQueries((db) => ({
  state: db.select({ generation: history.generation, floor: changeFloors.seq, head: changeFloors.head })
    .from(history).leftJoin(changeFloors, eq(changeFloors.userId, sql.placeholder("userId"))).prepare(),
}));

/** The cursor names changes the server no longer remembers: read everything again, without `since`. */
export class CursorExpired extends AppError {
  constructor() {
    super(410, "CURSOR_EXPIRED", "This cursor is older than what the server still remembers: read everything again, without since.");
  }
}

/**
 * The cursor is of another history of the server's data (restored from a backup since, or
 * written before this server's upgrade) or names a place this feed never reached: no id the
 * client had from this server can be trusted; sync again as a first sync, matching by content.
 */
export class HistoryReplaced extends AppError {
  constructor() {
    super(410, "HISTORY_REPLACED", "This cursor is of another history of the server's data (it was restored from a backup since): "
      + "trust no id you had from it before, and read everything again, without since, matching by content.");
  }
}

/** The message of a `since` that is no cursor at all (422). */
export const CURSOR_MESSAGE = "Expected the cursor of a previous answer";

/** A cursor as `cursor` writes it: the generation, a dot, the place. */
const CURSOR = /^([0-9A-Za-z_-]{16,64})\.(\d{1,15})$/;
/** A cursor as written before cursors named their history: the place alone. */
const OLD_CURSOR = /^\d{1,15}$/;

/** checkCursor records in `rules` a `since` (at `path`) that no version of the feed ever wrote; an old one passes, to be refused as HISTORY_REPLACED. */
export function checkCursor(since: string | undefined, rules: Rules, path = "/since"): void {
  if (since !== undefined && !CURSOR.test(since) && !OLD_CURSOR.test(since)) rules.fail(path, CURSOR_MESSAGE);
}

/** Where the owner's feed is: its history, its floor (older cursors expired) and its head (the last place handed out). */
interface FeedState {
  generation: string;
  floor: number;
  head: number;
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
    checkCursor(since, rules);
    rules.check();
    settle(db, user.id);
    const state = this.state();
    const after = since === undefined ? 0 : this.placeOf(since, state);
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
    // Nothing shown from the beginning: the floor, so the cursor is not expired at once.
    const place = shown.at(-1)?.seq ?? Math.max(after, state.floor);
    return { changes: list, cursor: cursorOf(state.generation, place), more: rows.length > limit };
  }

  /**
   * latest is the cursor of the feed's end now, after settling the marks: a client that has just
   * read everything (`GET /api/v1/collections`) follows the feed from there, without reading it
   * from the beginning.
   */
  latest(): string {
    settle(this.owner.db, this.owner.user.id);
    const state = this.state();
    return cursorOf(state.generation, state.head);
  }

  /**
   * changedSince says whether any of those links or collections of the owner changed after the
   * cursor `since` (a cursor the feed wrote: its form checked by the caller, checkCursor),
   * deleted ones included. The owner's marks are settled first, so every change committed before
   * is seen; inside a write's transaction nothing can land between this and the write. A cursor
   * of another history or beyond the feed's end: HistoryReplaced; below the floor: CursorExpired.
   */
  changedSince(since: string, items: { links: readonly number[]; collections: readonly number[] }): boolean {
    const { db, user } = this.owner;
    settle(db, user.id);
    const after = this.placeOf(since, this.state());
    if (items.links.length === 0 && items.collections.length === 0) return false;
    const named = (kind: "link" | "collection", ids: readonly number[]) =>
      sql`(${changes.kind} = ${kind} AND ${changes.itemId} IN (SELECT value FROM json_each(${JSON.stringify([...new Set(ids)])})))`;
    return db.select({ seq: changes.seq }).from(changes)
      .where(and(eq(changes.userId, user.id), gt(changes.seq, after), sql`(${named("link", items.links)} OR ${named("collection", items.collections)})`))
      .limit(1).get() !== undefined;
  }

  /** state is where the owner's feed is now (settle first): one read. */
  private state(): FeedState {
    const { db, user } = this.owner;
    const row = feedQueries(db).state.get({ userId: user.id })!;
    return { generation: row.generation, floor: row.floor ?? 0, head: row.head ?? 0 };
  }

  /**
   * placeOf is the place in the owner's feed a cursor names (its form already checked): one of
   * another history, an old one or one beyond the head is HistoryReplaced; below the floor, CursorExpired.
   */
  private placeOf(since: string, state: FeedState): number {
    const match = CURSOR.exec(since);
    if (!match || match[1] !== state.generation) throw new HistoryReplaced();
    const place = Number(match[2]);
    if (place > state.head) throw new HistoryReplaced();
    if (place < state.floor) throw new CursorExpired();
    return place;
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

/** cursorOf writes a cursor: the history and the place. */
const cursorOf = (generation: string, place: number) => `${generation}.${place}`;
