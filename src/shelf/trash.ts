/**
 * A shelf's trash. Deleting a link or a collection takes its rows out of their tables and keeps
 * them, as they were, in one row of `trash` (`data`): the link with its memberships and their
 * places, its saved page text and its health; a collection with what its deletion moved (its
 * sub-collections moved up, its lone links put in the Inbox) or, deleted with its contents, its
 * whole subtree and the links that were only in it. Nothing else reads `trash`, so a trashed item
 * is invisible everywhere by construction; restoring puts the rows back with their own ids. The
 * owner's `trashDays` (LINKSHELF_TRASH_DAYS) is how long they stay; 0 deletes at once.
 */
import { and, desc, eq, inArray, lt, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "../db/client";
import {
  changeFloors, changes, collections, imports, linkCollections, linkContents, linkCopies, linkHealth, links, trash,
  type CollectionRow, type LinkContentRow, type LinkHealthRow, type LinkRow, type TrashRow,
} from "../db/schema";
import { NotFound } from "../errors";
import { Rules } from "../rules";
import { deferIndexing, unindexLinks } from "../search/index-text";
import { iso } from "../timestamps";
import type { TrashItemJson, TrashPageJson } from "../contract/trash";
import { itemsOf, nextPosition, writeOrder, writePlaces, type Placed } from "./order";
import { settle } from "./marks";
import { adoptLoneLinks, putMemberships } from "./memberships";
import { TRASH_PAGE } from "./limits";
import { inboxId, type Owner } from "./scope";

/**
 * deleteLinks deletes the owner's links matching `where` (their memberships and saved content
 * go with them) and their search index rows, and unless `keepCopies` (the trash keeps the links)
 * their page copies, inside the caller's transaction; returns how many.
 * The one delete of links' rows: into the trash (discardLinks), at once, and a failed import's.
 */
export function deleteLinks({ db, user }: Owner, where: SQL, keepCopies = false): number {
  const deleted = db.delete(links).where(and(eq(links.userId, user.id), where)).returning({ id: links.id }).all();
  const ids = deleted.map((row) => row.id);
  unindexLinks(db, user.id, ids);
  // A link kept in the trash keeps its page copy (too large to keep in the trash's row) for a restore.
  if (!keepCopies && ids.length > 0) forgetCopies(db, user.id, ids);
  return deleted.length;
}

/** forgetCopies deletes the page copies of those of the user's links (deleted for good). */
function forgetCopies(db: Db, userId: number, ids: readonly number[]): void {
  db.delete(linkCopies).where(and(eq(linkCopies.userId, userId), sql`${linkCopies.linkId} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`)).run();
}

/** How many days a deleted item stays in the trash when the owner names none. */
export const DEFAULT_TRASH_DAYS = 30;
const DAY_MS = 86_400_000;

/** A trashed link: its row, its places in its collections, its saved page text (base64) and its health. */
interface LinkData {
  link: LinkRow;
  memberships: { collectionId: number; position: number }[];
  content: (Omit<LinkContentRow, "textZstd"> & { textZstd: string }) | null;
  health: LinkHealthRow | null;
}

/** What a plain delete of a collection changed besides removing it, so that a restore undoes it. */
interface Moved {
  /** Its sub-collections, moved up to its parent, with their places inside it. */
  children: { id: number; position: number }[];
  /** Its parent's items (or the top level's) with their places before the delete. */
  siblings: Placed[];
  /** Its links that were in no other collection, put in the Inbox. */
  inbox: number[];
}

/** A trashed collection: its row and its links' places in it; deleted with its contents also its subtree (parents first) and its lone links. */
interface CollectionData {
  collection: CollectionRow;
  memberships: { linkId: number; collectionId: number; position: number }[];
  subtree: CollectionRow[];
  links: LinkData[];
  moved: Moved | null;
}

/** trashDaysOf is how long the owner's deleted items are kept. */
const trashDaysOf = (owner: Owner) => owner.trashDays ?? DEFAULT_TRASH_DAYS;

/** linkData reads what restoring each of those links needs (inside the caller's transaction). */
function linkData({ db }: Owner, ids: readonly number[]): LinkData[] {
  if (ids.length === 0) return [];
  const list = JSON.stringify(ids);
  const inList = (column: typeof links.id | typeof linkCollections.linkId | typeof linkContents.linkId | typeof linkHealth.linkId) => sql`${column} IN (SELECT value FROM json_each(${list}))`;
  const memberships = new Map<number, LinkData["memberships"]>();
  for (const row of db.select().from(linkCollections).where(inList(linkCollections.linkId)).all()) {
    const list = memberships.get(row.linkId) ?? [];
    list.push({ collectionId: row.collectionId, position: row.position });
    memberships.set(row.linkId, list);
  }
  const contents = new Map(db.select().from(linkContents).where(inList(linkContents.linkId)).all().map((row) => [row.linkId, row]));
  const health = new Map(db.select().from(linkHealth).where(inList(linkHealth.linkId)).all().map((row) => [row.linkId, row]));
  return db.select().from(links).where(inList(links.id)).all().map((link) => {
    const content = contents.get(link.id);
    return {
      link,
      memberships: memberships.get(link.id) ?? [],
      content: content ? { ...content, textZstd: Buffer.from(content.textZstd).toString("base64") } : null,
      health: health.get(link.id) ?? null,
    };
  });
}

/** One item for the trash: what kind, its id and name, what restoring it brings back, and its data. */
interface Kept {
  kind: TrashRow["kind"];
  itemId: number;
  name: string;
  links: number;
  collections: number;
  data: LinkData | CollectionData;
}

/** Trash rows written per statement by keep: a bulk delete's most (each row binds 9 values; SQLite takes 32,766). */
const KEEP_BATCH = 1000;

/** keep writes trash rows (inside the caller's transaction), KEEP_BATCH per statement (one for the largest bulk delete), so a delete costs a bounded number of statements. */
function keep(owner: Owner, items: readonly Kept[], now: number): void {
  for (let at = 0; at < items.length; at += KEEP_BATCH) {
    const rows = items.slice(at, at + KEEP_BATCH).map(({ data, ...item }) => ({ ...item, userId: owner.user.id, deletedAt: now, data: JSON.stringify(data) }));
    owner.db.insert(trash).values(rows).onConflictDoUpdate({
      target: [trash.userId, trash.kind, trash.itemId],
      set: { name: sql`excluded.name`, deletedAt: now, links: sql`excluded.links`, collections: sql`excluded.collections`, data: sql`excluded.data` },
    }).run();
  }
}

/**
 * discardLinks deletes those of `ids` that are the owner's links (inside the caller's
 * transaction): into the trash, each link its own item, or at once when the owner keeps no
 * trash. Returns how many.
 */
export function discardLinks(owner: Owner, ids: readonly number[], now: number): number {
  if (trashDaysOf(owner) > 0) {
    const owned = linkData(owner, ids).filter((data) => data.link.userId === owner.user.id);
    keep(owner, owned.map((data) => ({ kind: "link", itemId: data.link.id, name: data.link.name, links: 1, collections: 0, data })), now);
  }
  return deleteLinks(owner, sql`${links.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`, trashDaysOf(owner) > 0);
}

/**
 * discardCollection deletes one of the owner's collections (checked by the caller, not the
 * Inbox) inside the caller's transaction, never losing a link nor a sub-collection:
 * - plain: its sub-collections take its place in its parent's order, its links that were in no
 *   other collection go to the end of the Inbox; the trash keeps what moved, for a restore;
 * - `withContents`: its whole subtree and the links that were only in it go to the trash as one
 *   item (at once when the owner keeps no trash), and one restore brings all of it back.
 */
export function discardCollection(owner: Owner, row: CollectionRow, now: number, withContents: boolean): void {
  const { db } = owner;
  const keeps = trashDaysOf(owner) > 0;
  const memberships = (ids: readonly number[]) => db.select().from(linkCollections)
    .where(sql`${linkCollections.collectionId} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`).all();
  if (withContents) {
    const subtree = subtreeOf(db, row.id);
    const ids = [row.id, ...subtree.map((child) => child.id)];
    const inside = memberships(ids);
    const lone = db.select({ id: links.id }).from(links).where(and(
      sql`${links.id} IN (SELECT link_id FROM link_collections WHERE collection_id IN (SELECT value FROM json_each(${JSON.stringify(ids)})))`,
      sql`NOT EXISTS (SELECT 1 FROM link_collections AS other WHERE other.link_id = ${links.id} AND other.collection_id NOT IN (SELECT value FROM json_each(${JSON.stringify(ids)})))`,
    )).all().map((link) => link.id);
    if (keeps) {
      const data: CollectionData = { collection: row, memberships: inside, subtree, links: linkData(owner, lone), moved: null };
      keep(owner, [{ kind: "collection", itemId: row.id, name: row.name, links: lone.length, collections: ids.length, data }], now);
    }
    deleteLinks(owner, sql`${links.id} IN (SELECT value FROM json_each(${JSON.stringify(lone)}))`, keeps);
    // Deepest first: a collection's parent is still there when it goes.
    for (const id of ids.reverse()) db.delete(collections).where(eq(collections.id, id)).run();
    return;
  }
  const siblings = itemsOf(owner, row.parentId);
  const inside = memberships([row.id]);
  const children = itemsOf(owner, row.id).filter((item) => item.kind === "collection");
  if (children.length > 0) {
    db.update(collections).set({ parentId: row.parentId }).where(eq(collections.parentId, row.id)).run();
    const order = siblings.filter((item) => !(item.kind === "collection" && item.id === row.id));
    order.splice(siblings.findIndex((item) => item.kind === "collection" && item.id === row.id), 0, ...children);
    writeOrder(owner, row.parentId, order);
  }
  const moved = adoptLoneLinks(owner, row.id, inboxId(owner));
  if (keeps) {
    const data: CollectionData = {
      collection: row, memberships: inside, subtree: [], links: [],
      moved: { children: children.map(({ id, position }) => ({ id, position })), siblings, inbox: moved },
    };
    keep(owner, [{ kind: "collection", itemId: row.id, name: row.name, links: 0, collections: 1, data }], now);
  }
  db.delete(collections).where(eq(collections.id, row.id)).run();
}

/** subtreeOf is every collection below one, parents before their children. */
function subtreeOf(db: Db, id: number): CollectionRow[] {
  const rows = db.all<{ id: number }>(sql`
    WITH RECURSIVE below (id, level) AS (
      SELECT id, 1 FROM collections WHERE parent_id = ${id}
      UNION ALL
      SELECT c.id, below.level + 1 FROM collections AS c JOIN below ON c.parent_id = below.id
    )
    SELECT id FROM below ORDER BY level, id`).map((found) => found.id);
  if (rows.length === 0) return [];
  const byId = new Map(db.select().from(collections).where(inArray(collections.id, rows)).all().map((row) => [row.id, row]));
  return rows.map((found) => byId.get(found)!);
}

/** What restoring brought back: links and collections, those inside a restored collection included. */
interface Restored {
  links: number;
  collections: number;
}

export class ShelfTrash {
  constructor(private readonly owner: Owner) {}

  /** How many days a trashed item stays (0: the owner keeps no trash). */
  get days(): number {
    return trashDaysOf(this.owner);
  }

  /** page lists the owner's trash, newest first: `limit` items after `cursor` (the previous page's `nextCursor`). */
  page(wanted?: number, cursor?: string): TrashPageJson {
    const { db, user } = this.owner;
    const rules = new Rules();
    const limit = rules.pageLimit(wanted, TRASH_PAGE);
    // A cursor is what `nextCursor` wrote: `deletedAt.id`.
    const match = cursor === undefined ? null : /^(\d{1,15})\.(\d{1,15})$/.exec(cursor);
    if (cursor !== undefined && !match) rules.fail("/cursor", "Expected the nextCursor of a previous page");
    rules.check();
    const after = match ? { deletedAt: Number(match[1]), id: Number(match[2]) } : undefined;
    const rows = db.select({ id: trash.id, kind: trash.kind, itemId: trash.itemId, name: trash.name, deletedAt: trash.deletedAt, links: trash.links, collections: trash.collections })
      .from(trash)
      .where(and(eq(trash.userId, user.id), after && or(lt(trash.deletedAt, after.deletedAt), and(eq(trash.deletedAt, after.deletedAt), lt(trash.id, after.id)))))
      .orderBy(desc(trash.deletedAt), desc(trash.id))
      .limit(limit + 1).all();
    const shown = rows.slice(0, limit);
    const last = shown.at(-1);
    return {
      items: shown.map((row): TrashItemJson => ({
        kind: row.kind, id: row.itemId, name: row.name, deletedAt: iso(row.deletedAt),
        purgeAt: iso(row.deletedAt + this.days * DAY_MS), links: row.links, collections: row.collections,
      })),
      nextCursor: rows.length > limit && last ? `${last.deletedAt}.${last.id}` : null,
    };
  }

  /** counts are how many items the owner's trash holds, and the links and collections restoring all of them would bring back. */
  counts(): { items: number; links: number; collections: number } {
    const { db, user } = this.owner;
    return db.select({ items: sql<number>`count(*)`, links: sql<number>`coalesce(sum(${trash.links}), 0)`, collections: sql<number>`coalesce(sum(${trash.collections}), 0)` })
      .from(trash).where(eq(trash.userId, user.id)).get()!;
  }

  /**
   * restore puts trashed links and collections back as they were, in one transaction; every id
   * must be in the owner's trash (NotFound otherwise, nothing restored). A link whose
   * collections are gone returns to the Inbox; a collection whose parent is gone returns to the
   * top level. An undone import whose items come back is no longer undone.
   */
  restore(ids: { links?: readonly number[]; collections?: readonly number[] }): Restored {
    const { db, user } = this.owner;
    return db.transaction(() => {
      const wanted = [...(ids.collections ?? []).map((id) => ["collection", id] as const), ...(ids.links ?? []).map((id) => ["link", id] as const)];
      const rows = wanted.map(([kind, id]) => {
        const row = db.select().from(trash).where(and(eq(trash.userId, user.id), eq(trash.kind, kind), eq(trash.itemId, id))).get();
        if (!row) throw new NotFound();
        return row;
      });
      const restored: Restored = { links: 0, collections: 0 };
      const importIds = new Set<number>();
      for (const row of rows) {
        db.delete(trash).where(eq(trash.id, row.id)).run();
        if (row.kind === "link") {
          const data = JSON.parse(row.data) as LinkData;
          this.putLink(data, importIds);
          restored.links++;
        } else {
          const data = JSON.parse(row.data) as CollectionData;
          this.putCollection(data, importIds);
          restored.collections += 1 + data.subtree.length;
          restored.links += data.links.length;
        }
      }
      if (importIds.size > 0) db.update(imports).set({ undoneAt: null }).where(and(eq(imports.userId, user.id), inArray(imports.id, [...importIds]))).run();
      return restored;
    }, { behavior: "immediate" });
  }

  /** empty deletes everything in the owner's trash for good; returns how many items. */
  empty(): number {
    return this.owner.db.transaction(() => forget(this.owner.db, eq(trash.userId, this.owner.user.id)), { behavior: "immediate" });
  }

  /** putLink inserts a trashed link again with its own id, in its collections that still exist (the Inbox when none does). */
  private putLink(data: LinkData, importIds: Set<number>): void {
    const { db, user } = this.owner;
    db.insert(links).values(data.link).run();
    const owned = this.ownedIds(data.memberships.map((membership) => membership.collectionId));
    let kept = data.memberships.filter((membership) => owned.has(membership.collectionId));
    if (kept.length === 0) {
      const inbox = inboxId(this.owner);
      kept = [{ collectionId: inbox, position: nextPosition(this.owner, inbox) }];
    }
    putMemberships(this.owner, kept.map(({ collectionId, position }) => ({ linkId: data.link.id, collectionId, position })));
    if (data.content) db.insert(linkContents).values({ ...data.content, textZstd: Buffer.from(data.content.textZstd, "base64") }).run();
    if (data.health) db.insert(linkHealth).values(data.health).run();
    deferIndexing(db, data.link.id);
    if (data.link.importId !== null && data.link.userId === user.id) importIds.add(data.link.importId);
  }

  /** putCollection inserts a trashed collection again, with its subtree and lone links, and undoes what its plain delete moved. */
  private putCollection(data: CollectionData, importIds: Set<number>): void {
    const { db } = this.owner;
    const root = data.collection;
    const parentKept = root.parentId === null || this.ownedIds([root.parentId]).has(root.parentId);
    const parentId = parentKept ? root.parentId : null;
    db.insert(collections).values({ ...root, parentId, position: parentKept ? root.position : nextPosition(this.owner, null) }).run();
    for (const row of data.subtree) db.insert(collections).values(row).run();
    for (const link of data.links) this.putLink(link, importIds);
    const present = new Set(db.select({ id: links.id }).from(links)
      .where(sql`${links.id} IN (SELECT value FROM json_each(${JSON.stringify(data.memberships.map((membership) => membership.linkId))}))`).all().map((link) => link.id));
    const back = data.memberships.filter((membership) => present.has(membership.linkId));
    putMemberships(this.owner, back);
    if (root.importId !== null) importIds.add(root.importId);
    const moved = data.moved;
    if (!moved) return;
    // What the delete moved goes back where it was, if it is still where the delete put it.
    for (const child of moved.children) {
      db.update(collections).set({ parentId: root.id, position: child.position })
        .where(and(eq(collections.id, child.id), root.parentId === null ? sql`${collections.parentId} IS NULL` : eq(collections.parentId, root.parentId))).run();
    }
    if (parentKept) {
      const now = new Set(itemsOf(this.owner, root.parentId).map((item) => `${item.kind}:${item.id}`));
      // The Inbox's place (first, kept as -Infinity, which JSON writes as null) never moves.
      writePlaces(this.owner, root.parentId, moved.siblings.filter((item) => now.has(`${item.kind}:${item.id}`) && Number.isFinite(item.position)));
    }
    const inbox = inboxId(this.owner);
    if (moved.inbox.length > 0) {
      db.delete(linkCollections).where(and(
        eq(linkCollections.collectionId, inbox),
        sql`${linkCollections.linkId} IN (SELECT value FROM json_each(${JSON.stringify(moved.inbox)}))`,
        sql`EXISTS (SELECT 1 FROM link_collections AS other WHERE other.link_id = ${linkCollections.linkId} AND other.collection_id <> ${inbox})`,
      )).run();
    }
  }

  /** ownedIds is those of `ids` that are the owner's collections. */
  private ownedIds(ids: readonly number[]): Set<number> {
    if (ids.length === 0) return new Set();
    return new Set(this.owner.db.select({ id: collections.id }).from(collections)
      .where(and(eq(collections.userId, this.owner.user.id), inArray(collections.id, [...new Set(ids)]))).all().map((row) => row.id));
  }
}

/**
 * forget deletes the trash rows matching `where` for good (inside the caller's transaction), with
 * the change feed's rows of what they held: each user's feed then remembers nothing at or before
 * the newest of those, and an older cursor is expired. Returns how many rows.
 */
function forget(db: Db, where: SQL | undefined): number {
  const gone = db.delete(trash).where(where).returning({ userId: trash.userId, kind: trash.kind, itemId: trash.itemId, data: trash.data }).all();
  for (const row of gone) {
    const items: [string, number][] = [[row.kind, row.itemId]];
    if (row.kind === "collection") {
      const data = JSON.parse(row.data) as CollectionData;
      for (const child of data.subtree) items.push(["collection", child.id]);
      for (const link of data.links) items.push(["link", link.link.id]);
    }
    // Gone for good: so are the copies the trash kept for its links.
    forgetCopies(db, row.userId, items.filter(([kind]) => kind === "link").map(([, id]) => id));
    // Marked since the owner's last read, it has no row yet: settle first, so its row is the one forgotten.
    settle(db, row.userId);
    const seqs = db.delete(changes).where(and(
      eq(changes.userId, row.userId),
      sql`(${changes.kind}, ${changes.itemId}) IN (SELECT value ->> 0, value ->> 1 FROM json_each(${JSON.stringify(items)}))`,
    )).returning({ seq: changes.seq }).all().map((change) => change.seq);
    if (seqs.length === 0) continue;
    const floor = Math.max(...seqs);
    db.insert(changeFloors).values({ userId: row.userId, seq: floor, head: floor })
      .onConflictDoUpdate({ target: changeFloors.userId, set: { seq: sql`max(${changeFloors.seq}, ${floor})`, head: sql`max(${changeFloors.head}, ${floor})` } }).run();
  }
  return gone.length;
}

/** Trash rows purged per transaction by purgeTrash: each holds the database for a moment only. */
const PURGE_BATCH = 200;

/**
 * purgeTrash deletes for good every trashed item older than `days` (of every user), PURGE_BATCH
 * per transaction with the event loop running between them. Returns how many.
 */
export async function purgeTrash(db: Db, now: number, days: number): Promise<number> {
  const before = now - days * DAY_MS;
  let purged = 0;
  for (;;) {
    const batch = db.transaction(() => {
      const ids = db.select({ id: trash.id }).from(trash).where(lt(trash.deletedAt, before)).limit(PURGE_BATCH).all().map((row) => row.id);
      return ids.length === 0 ? 0 : forget(db, inArray(trash.id, ids));
    }, { behavior: "immediate" });
    purged += batch;
    if (batch < PURGE_BATCH) return purged;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
