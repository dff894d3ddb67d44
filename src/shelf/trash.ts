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
import { NotFound } from "../common/errors";
import { Rules } from "../common/rules";
import { deferIndexingMany, unindexLinks, wakeIndexer } from "../fulltext/index-text";
import { iso } from "../common/timestamps";
import type { TrashItemJson, TrashPageJson } from "../contract/trash";
import { ancestorsOf, heightOf, itemsOf, nextPosition, writeOrder, writePlaces, type Placed } from "./order";
import { settle } from "./change-marks";
import { adoptLoneLinks, putMemberships, type PlacedMembership } from "./memberships";
import { MEMBERSHIP_LIMITS, TRASH_PAGE, TREE_DEPTH } from "./limits";
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

/** An undone import: the links it created and the collections it left empty, as their own deletes would have kept them, in the order they went. */
interface ImportData {
  items: Kept[];
}

/** One item for the trash: what kind, its id and name, what restoring it brings back, and its data. */
interface Kept {
  kind: TrashRow["kind"];
  itemId: number;
  name: string;
  links: number;
  collections: number;
  data: LinkData | CollectionData | ImportData;
}

/**
 * Where a delete puts what the trash keeps: the trash itself, or (an import being undone) a list
 * that then becomes one item of the trash (`discardImport`).
 */
export type TrashSink = Kept[];

/** store keeps items in the trash, or in `sink` when one is given. */
function store(owner: Owner, items: Kept[], now: number, sink: TrashSink | undefined): void {
  if (sink) sink.push(...items);
  else keep(owner, items, now);
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
export function discardLinks(owner: Owner, ids: readonly number[], now: number, sink?: TrashSink): number {
  if (trashDaysOf(owner) > 0) {
    const owned = linkData(owner, ids).filter((data) => data.link.userId === owner.user.id);
    store(owner, owned.map((data) => ({ kind: "link", itemId: data.link.id, name: data.link.name, links: 1, collections: 0, data })), now, sink);
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
export function discardCollection(owner: Owner, row: CollectionRow, now: number, withContents: boolean, sink?: TrashSink): void {
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
      store(owner, [{ kind: "collection", itemId: row.id, name: row.name, links: lone.length, collections: ids.length, data }], now, sink);
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
    store(owner, [{ kind: "collection", itemId: row.id, name: row.name, links: 0, collections: 1, data }], now, sink);
  }
  db.delete(collections).where(eq(collections.id, row.id)).run();
}

/**
 * discardImport keeps what undoing an import took (`sink`, filled by discardLinks and
 * discardCollection) as ONE item of the trash, named `name`: restored as a whole (the import
 * stands again) and purged as a whole. Nothing when the sink is empty (nothing went, or the owner
 * keeps no trash). Inside the caller's transaction.
 */
export function discardImport(owner: Owner, importId: number, name: string, sink: TrashSink, now: number): void {
  if (sink.length === 0) return;
  const links = sink.reduce((sum, item) => sum + item.links, 0);
  const collections = sink.reduce((sum, item) => sum + item.collections, 0);
  keep(owner, [{ kind: "import", itemId: importId, name, links, collections, data: { items: sink } }], now);
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

/** What restoring brought back: links and collections, those inside a restored collection included; and the collections put at the top level because inside their parent they would have been too deep. */
export interface Restored {
  links: number;
  collections: number;
  tooDeep: number[];
}

/** A link or a collection to restore, its data parsed (an undone import is restored as the items it took). */
type Trashed = { kind: "link"; data: LinkData } | { kind: "collection"; data: CollectionData };

/** A trash row read for a restore, its data parsed. */
interface ReadRow {
  row: TrashRow;
  data: LinkData | CollectionData | ImportData;
}

/** The ids a restore names, by kind. */
export type RestoreIds = { links?: readonly number[]; collections?: readonly number[]; imports?: readonly number[] };

/** The trash rows a restore names, read and parsed before its transaction (ShelfTrash.readAhead), by `<kind>:<item id>`. */
export type ReadAhead = Map<string, ReadRow>;

/** The items a restore names, each once (named twice, it is restored once). */
const wantedOf = (ids: RestoreIds) => [
  ...[...new Set(ids.imports ?? [])].map((id) => ["import", id] as const),
  ...[...new Set(ids.collections ?? [])].map((id) => ["collection", id] as const),
  ...[...new Set(ids.links ?? [])].map((id) => ["link", id] as const),
];

/** parsed is a trash row with its data parsed. */
const parsed = (row: TrashRow): ReadRow => ({ row, data: JSON.parse(row.data) as LinkData | CollectionData | ImportData });

/**
 * restoreOrder puts the collections of a restore before the links, and a collection after every
 * other one of the restore whose subtree holds its parent: so that one restore of collections that
 * were nested puts each inside the one it was in, whatever order they were named in.
 */
function restoreOrder(items: readonly Trashed[]): Trashed[] {
  const collections = items.filter((item) => item.kind === "collection");
  const holder = new Map<number, Trashed>();
  for (const item of collections) {
    const data = item.data as CollectionData;
    for (const id of [data.collection.id, ...data.subtree.map((row) => row.id)]) holder.set(id, item);
  }
  const ordered: Trashed[] = [];
  const placed = new Set<Trashed>();
  const visit = (item: Trashed, path: Set<Trashed>) => {
    if (placed.has(item) || path.has(item)) return;
    path.add(item);
    const parentId = (item.data as CollectionData).collection.parentId;
    const above = parentId === null ? undefined : holder.get(parentId);
    if (above && above !== item) visit(above, path);
    placed.add(item);
    ordered.push(item);
  };
  for (const item of collections) visit(item, new Set());
  return [...ordered, ...items.filter((item) => item.kind === "link")];
}

/** Rows per statement of the bulk inserts of a restore (the links' rows bind ~15 values each; SQLite takes 32,766 per statement). */
const RESTORE_ROWS = 1000;

/** inChunks runs `write` on `rows`, RESTORE_ROWS (or `size`) at a time. */
function inChunks<Row>(rows: readonly Row[], write: (chunk: Row[]) => void, size = RESTORE_ROWS): void {
  for (let at = 0; at < rows.length; at += size) write(rows.slice(at, at + size));
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
   * top level, and so does one that would be nested deeper than TREE_DEPTH inside it (`tooDeep`).
   * Collections restored together that were nested are nested again. An undone import whose
   * items come back is no longer undone. Written in a bounded number of statements per item
   * (its links' rows in bulk), so a collection of 10,000 links comes back in one short transaction.
   * With `ahead` (readAhead's), a row still there (the same id) is not read nor parsed again.
   */
  restore(ids: RestoreIds, ahead?: ReadAhead): Restored {
    const { db, user } = this.owner;
    const restored = db.transaction(() => {
      // A trash row is never updated and its id never given again (AUTOINCREMENT): the row read
      // ahead is the one here if its id still is (comparing its data as well cost ~5 ms at 10,000 links).
      // Raw statement (a measured hot path): run once per item restored, compiled once.
      const same = db.$client.query<{ id: number }, [number, number, string, number]>("SELECT id FROM trash WHERE id = ? AND user_id = ? AND kind = ? AND item_id = ?");
      const rows = wantedOf(ids).map(([kind, id]): ReadRow => {
        // Read ahead from the very same row: not read nor parsed again.
        const before = ahead?.get(`${kind}:${id}`);
        if (before && same.get(before.row.id, user.id, kind, id)) return before;
        const row = this.row(kind, id);
        if (!row) throw new NotFound();
        return parsed(row);
      });
      inChunks(rows.map(({ row }) => row.id), (chunk) => db.delete(trash).where(inArray(trash.id, chunk)).run());
      // An undone import is the links and collections it took, each restored as its own item would be.
      const items: Trashed[] = [];
      const add = (kind: TrashRow["kind"], data: LinkData | CollectionData | ImportData) => {
        if (kind === "import") for (const item of (data as ImportData).items) add(item.kind, item.data);
        else items.push(kind === "link" ? { kind, data: data as LinkData } : { kind: "collection", data: data as CollectionData });
      };
      for (const { row, data } of rows) add(row.kind, data);
      const restored: Restored = { links: 0, collections: 0, tooDeep: [] };
      const importIds = new Set<number>();
      const lone: LinkData[] = [];
      for (const item of restoreOrder(items)) {
        if (item.kind === "link") {
          lone.push(item.data);
          restored.links++;
        } else {
          if (!this.putCollection(item.data, importIds)) restored.tooDeep.push(item.data.collection.id);
          restored.collections += 1 + item.data.subtree.length;
          restored.links += item.data.links.length;
        }
      }
      this.putLinks(lone, importIds);
      if (importIds.size > 0) db.update(imports).set({ undoneAt: null }).where(and(eq(imports.userId, user.id), inArray(imports.id, [...importIds]))).run();
      return restored;
    }, { behavior: "immediate" });
    wakeIndexer(db);
    return restored;
  }

  /**
   * readAhead reads and parses the trash rows a restore of `ids` names, outside a transaction, for
   * `restore` to use those still the same in its own (parsing a collection of 10,000 links takes
   * ~20 ms): the API reads them in the request's turn of the event loop, and the restore's
   * transaction, in a later turn, holds the server that much less.
   */
  readAhead(ids: RestoreIds): ReadAhead {
    const ahead: ReadAhead = new Map();
    for (const [kind, id] of wantedOf(ids)) {
      const row = this.row(kind, id);
      if (row) ahead.set(`${kind}:${id}`, parsed(row));
    }
    return ahead;
  }

  /** linksIn is how many links restoring `ids` would bring back, read from their trash rows' counts (their data not read). */
  linksIn(ids: RestoreIds): number {
    const { db, user } = this.owner;
    // Raw statement (a measured hot path): run once per item of a restore, compiled once.
    const count = db.$client.query<{ links: number }, [number, string, number]>("SELECT links FROM trash WHERE user_id = ? AND kind = ? AND item_id = ?");
    return wantedOf(ids).reduce((sum, [kind, id]) => sum + (count.get(user.id, kind, id)?.links ?? 0), 0);
  }

  /** row is the owner's trash row of one item, if there is one. */
  private row(kind: TrashRow["kind"], id: number): TrashRow | undefined {
    const { db, user } = this.owner;
    return db.select().from(trash).where(and(eq(trash.userId, user.id), eq(trash.kind, kind), eq(trash.itemId, id))).get();
  }

  /**
   * drain deletes the owner's trash for good in slices, the event loop running between them
   * (forgetInSlices: a trash of 10,000 items took 1.4 s at once), each committed on its own;
   * `empty` then takes what came meanwhile. Returns how many items.
   */
  drain(): Promise<number> {
    return forgetInSlices(this.owner.db, eq(trash.userId, this.owner.user.id), this.owner.user.id);
  }

  /** empty deletes everything in the owner's trash for good, in one transaction (after `drain`, little is left); returns how many items. */
  empty(): number {
    return this.owner.db.transaction(() => forget(this.owner.db, eq(trash.userId, this.owner.user.id)), { behavior: "immediate" });
  }

  /**
   * putLinks inserts trashed links again with their own ids, each in its collections that still
   * exist (the Inbox, at its end, when none does), its saved text and health with it; in bulk.
   */
  private putLinks(list: readonly LinkData[], importIds: Set<number>): void {
    if (list.length === 0) return;
    const { db, user } = this.owner;
    // Raw statement (a measured hot path): one prepared statement, bound row after row: through drizzle, 12 ms per 1,000 links; reading the rows from JSON in SQL, 7.
    const insert = db.$client.query<never, (string | number | null)[]>(`INSERT INTO links (id, user_id, name, description, url, favorite, to_read, archived, clicks, last_clicked_at, created_at, updated_at, import_id)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    // A link trashed before it had the reading flags has none in its data: false, as the column's default.
    for (const { link } of list) {
      insert.run(link.id, link.userId, link.name, link.description, link.url, link.favorite ? 1 : 0, link.toRead ? 1 : 0, link.archived ? 1 : 0,
        link.clicks, link.lastClickedAt, link.createdAt, link.updatedAt, link.importId);
    }
    const owned = this.ownedIds(list.flatMap((data) => data.memberships.map((membership) => membership.collectionId)));
    let inbox: { id: number; next: number } | undefined;
    const rows: PlacedMembership[] = [];
    for (const data of list) {
      const kept = data.memberships.filter((membership) => owned.has(membership.collectionId));
      if (kept.length === 0) {
        inbox ??= { id: inboxId(this.owner), next: nextPosition(this.owner, inboxId(this.owner)) };
        rows.push({ linkId: data.link.id, collectionId: inbox.id, position: inbox.next++ });
      }
      for (const { collectionId, position } of kept) rows.push({ linkId: data.link.id, collectionId, position });
      if (data.link.importId !== null && data.link.userId === user.id) importIds.add(data.link.importId);
    }
    putMemberships(this.owner, rows);
    const linkIds = list.map((data) => data.link.id);
    const contents = list.flatMap((data) => (data.content ? [{ ...data.content, textZstd: Buffer.from(data.content.textZstd, "base64") }] : []));
    inChunks(contents, (chunk) => db.insert(linkContents).values(chunk).run(), 100);
    inChunks(list.flatMap((data) => (data.health ? [data.health] : [])), (chunk) => db.insert(linkHealth).values(chunk).run());
    deferIndexingMany(db, linkIds);
  }

  /**
   * putCollection inserts a trashed collection again, with its subtree and lone links, and undoes
   * what its plain delete moved. It goes back inside its parent unless the parent is gone or it
   * would be nested deeper than TREE_DEPTH there (then at the top level; the latter returns false); a
   * sub-collection its plain delete moved up goes back inside it only if that stays within
   * TREE_DEPTH. A link it held is put back in it unless that link is in
   * MEMBERSHIP_LIMITS.perLink collections already.
   */
  private putCollection(data: CollectionData, importIds: Set<number>): boolean {
    const { db, user } = this.owner;
    const root = data.collection;
    const parentKept = root.parentId === null || this.ownedIds([root.parentId]).has(root.parentId);
    const moved = data.moved;
    // Its sub-collections the delete moved up, still where it put them, with how many levels each takes.
    const children = moved && moved.children.length > 0
      ? db.select({ id: collections.id }).from(collections).where(and(
        eq(collections.userId, user.id), inArray(collections.id, moved.children.map((child) => child.id)),
        root.parentId === null ? sql`${collections.parentId} IS NULL` : eq(collections.parentId, root.parentId),
      )).all().map((row) => ({ id: row.id, height: heightOf(db, row.id) }))
      : [];
    const levels = new Map<number, number>([[root.id, 1]]);
    for (const row of data.subtree) levels.set(row.id, levels.get(row.parentId!)! + 1);
    const height = Math.max(...levels.values(), ...children.map((child) => 1 + child.height));
    const parentDepth = parentKept && root.parentId !== null ? ancestorsOf(db, user.id, root.parentId).length + 1 : 0;
    const tooDeep = parentDepth + height > TREE_DEPTH && parentDepth > 0;
    const asBefore = parentKept && !tooDeep;
    const depth = asBefore ? parentDepth + 1 : 1;
    db.insert(collections).values({ ...root, parentId: asBefore ? root.parentId : null, position: asBefore ? root.position : nextPosition(this.owner, null) }).run();
    inChunks(data.subtree, (chunk) => db.insert(collections).values(chunk).run());
    this.putLinks(data.links, importIds);
    // Its other links that are on the shelf go back in it, up to a link's limit (the lone ones just restored are in it already).
    const lone = new Set(data.links.map((link) => link.link.id));
    const others = data.memberships.filter((membership) => !lone.has(membership.linkId));
    const linkIds = [...new Set(others.map((membership) => membership.linkId))];
    const counts = new Map(db.all<{ linkId: number; n: number }>(sql`
      SELECT l.id AS linkId, (SELECT count(*) FROM ${linkCollections} AS lc WHERE lc.link_id = l.id) AS n
      FROM ${links} AS l WHERE l.user_id = ${user.id} AND l.id IN (SELECT value FROM json_each(${JSON.stringify(linkIds)}))`).map((row) => [row.linkId, row.n]));
    const back: PlacedMembership[] = [];
    for (const { linkId, collectionId, position } of others) {
      const count = counts.get(linkId);
      if (count === undefined || count >= MEMBERSHIP_LIMITS.perLink) continue;
      counts.set(linkId, count + 1);
      back.push({ linkId, collectionId, position });
    }
    putMemberships(this.owner, back);
    if (root.importId !== null) importIds.add(root.importId);
    if (moved) {
      // What the delete moved goes back where it was, if it is still where the delete put it (and fits there).
      const position = new Map(moved.children.map((child) => [child.id, child.position]));
      for (const child of children) {
        if (depth + child.height > TREE_DEPTH) continue;
        db.update(collections).set({ parentId: root.id, position: position.get(child.id)! }).where(eq(collections.id, child.id)).run();
      }
      if (asBefore) {
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
    return !tooDeep;
  }

  /** ownedIds is those of `ids` that are the owner's collections. */
  private ownedIds(ids: readonly number[]): Set<number> {
    if (ids.length === 0) return new Set();
    return new Set(this.owner.db.select({ id: collections.id }).from(collections)
      .where(and(eq(collections.userId, this.owner.user.id), sql`${collections.id} IN (SELECT value FROM json_each(${JSON.stringify([...new Set(ids)])}))`)).all().map((row) => row.id));
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
    const items: [string, number][] = [];
    /** held adds what one kept item held, as the change feed names it (an undone import: everything it held). */
    const held = (kind: TrashRow["kind"], itemId: number, data: LinkData | CollectionData | ImportData) => {
      if (kind === "import") {
        for (const item of (data as ImportData).items) held(item.kind, item.itemId, item.data);
        return;
      }
      items.push([kind, itemId]);
      if (kind === "collection") {
        for (const child of (data as CollectionData).subtree) items.push(["collection", child.id]);
        for (const link of (data as CollectionData).links) items.push(["link", link.link.id]);
      }
    };
    // A link's own row names only itself: its data is not read.
    if (row.kind === "link") items.push(["link", row.itemId]);
    else held(row.kind, row.itemId, JSON.parse(row.data) as CollectionData | ImportData);
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

/**
 * How purgeTrash and emptying a trash delete rows for good: `rows` per statement, statements
 * in one transaction until it has run `millis` or deleted `most` rows, the event loop running
 * between transactions.
 */
const PURGE_SLICE = { rows: 50, most: 200, millis: 20 } as const;

/** Marks of the change feed settled per transaction before a user's trash is emptied (a backlog of 10,000 took over 100 ms at once). */
const SETTLE_SLICE = 1000;

/**
 * forgetInSlices deletes for good every trash row matching `where`, in transactions of PURGE_SLICE
 * with the event loop running between them; for one user (`userId`), the user's pending marks
 * are settled first, SETTLE_SLICE at a time. Returns how many.
 */
async function forgetInSlices(db: Db, where: SQL, userId?: number): Promise<number> {
  const pause = () => new Promise((resolve) => setImmediate(resolve));
  if (userId !== undefined) while (settle(db, userId, SETTLE_SLICE) === SETTLE_SLICE) await pause();
  let purged = 0;
  for (;;) {
    const { count, more } = db.transaction(() => {
      const started = performance.now();
      let count = 0;
      for (;;) {
        const ids = db.select({ id: trash.id }).from(trash).where(where).limit(PURGE_SLICE.rows).all().map((row) => row.id);
        count += ids.length === 0 ? 0 : forget(db, inArray(trash.id, ids));
        if (ids.length < PURGE_SLICE.rows) return { count, more: false };
        if (count >= PURGE_SLICE.most || performance.now() - started >= PURGE_SLICE.millis) return { count, more: true };
      }
    }, { behavior: "immediate" });
    purged += count;
    if (!more) return purged;
    await pause();
  }
}

/** purgeTrash deletes for good every trashed item older than `days` (of every user), in slices (forgetInSlices). Returns how many. */
export function purgeTrash(db: Db, now: number, days: number): Promise<number> {
  return forgetInSlices(db, lt(trash.deletedAt, now - days * DAY_MS));
}
