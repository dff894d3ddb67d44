/**
 * A shelf's collections: every read and write of the `collections` table for one owner, and
 * the membership join the collection list and the export share, and the tree they form
 * (`parentId`, each collection's order: src/shelf/order.ts). The Inbox rules live here: it is
 * listed first, keeps its own icon, stays at the top level, holds no sub-collections and cannot
 * be deleted.
 */
import { and, asc, desc, eq, sql } from "drizzle-orm";
import { collections, linkCollections, linkCopies, links, type CollectionRow, type LinkRow } from "../db/schema";
import type { Db } from "../db/client";
import { readDatabaseStamp, StampedAnswers } from "../db/etag-stamp";
import { Conflict, NotFound } from "../common/errors";
import { toCollectionJson, toLinkJson, type CopyColumns } from "./json";
import { COLLECTION_LIMITS } from "./limits";
import { byPosition, checkParent, itemsOf, nextPosition, sameItems, writeOrder, type Placed } from "./order";
import { discardCollection, type TrashSink } from "./trash";
import { DEFAULT_ICON, type CollectionSummary } from "./types";
import { atOnce, inSlices, type Steps } from "./steps";
import type { CollectionBody, CollectionJson, OrderItem } from "../contract/collections";
import type { LinkJson } from "../contract/links";
import { Rules } from "../common/rules";
import type { ShelfLinks } from "./links";
import { inboxId, INBOX, ownedCollection, type Owner } from "./scope";

/**
 * treeOrder lists collections as a tree, depth first: the top level in its order (the Inbox
 * first), each collection followed by its sub-collections in theirs, each with its depth (1 at
 * the top level). A collection whose parent is not among them is listed at the top level.
 */
export function treeOrder<Row extends CollectionRow>(rows: readonly Row[]): (Row & { depth: number })[] {
  const ids = new Set(rows.map((row) => row.id));
  const children = new Map<number | null, Row[]>();
  for (const row of rows) {
    const parent = row.parentId !== null && ids.has(row.parentId) ? row.parentId : null;
    const list = children.get(parent);
    if (list) list.push(row);
    else children.set(parent, [row]);
  }
  const place = (row: Row) => ({ kind: "collection" as const, id: row.id, position: row.isDefault ? -Infinity : row.position });
  const listed: (Row & { depth: number })[] = [];
  const walk = (parent: number | null, depth: number) => {
    const level = children.get(parent);
    if (!level) return;
    level.sort((a, b) => byPosition(place(a), place(b)));
    for (const row of level) {
      listed.push({ ...row, depth });
      walk(row.id, depth + 1);
    }
  };
  walk(null, 1);
  return listed;
}

/**
 * KeptLists keeps each user's collection list body (`GET /api/v1/collections`, the extension's
 * start-up read, which can be megabytes) until anything in the database changes
 * (src/db/etag-stamp.ts). The route that answers the list keeps one.
 */
export class KeptLists {
  private readonly bodies = new StampedAnswers<Uint8Array>();

  /** of is the owner's body kept at the database's present stamp, or `build()` kept now. */
  of({ db, user }: Owner, build: () => Uint8Array): Uint8Array {
    return this.bodies.get(readDatabaseStamp(db), user.id, build);
  }

  /** ofInSlices is `of` with a body built over several turns, kept only if nothing changed meanwhile (its reading starts in this turn, with the stamp's). */
  ofInSlices({ db, user }: Owner, build: () => Promise<Uint8Array>): Promise<Uint8Array> {
    return this.bodies.getLater(readDatabaseStamp(db), user.id, build);
  }
}

/** One link in one of its collections, with its place in the collection's order: the membership join's row. */
export type Membership = LinkRow & CopyColumns & { collectionId: number; position: number };

/** The columns of the membership join, in the order its rows are read (see memberships). */
const MEMBERSHIP_COLUMNS = {
  collectionId: linkCollections.collectionId, position: linkCollections.position, id: links.id, userId: links.userId, name: links.name,
  description: links.description, url: links.url, favorite: links.favorite, toRead: links.toRead, archived: links.archived, clicks: links.clicks,
  lastClickedAt: links.lastClickedAt, createdAt: links.createdAt, updatedAt: links.updatedAt,
  copySavedAt: linkCopies.savedAt, copyBytes: linkCopies.bytes,
};
const MEMBERSHIP_KEYS = Object.keys(MEMBERSHIP_COLUMNS) as (keyof Membership)[];

/**
 * checkCollection applies the rules to a collection body. `current` is the stored collection
 * on update: an omitted description or icon keeps its value, and `null` or "" clears it (a
 * cleared icon is the default one again: the Inbox's own for the Inbox).
 */
function checkCollection(owner: Owner, input: CollectionBody, current?: CollectionRow) {
  const rules = new Rules();
  const parentId = input.parentId === undefined ? current?.parentId ?? null : input.parentId;
  if (parentId !== (current?.parentId ?? null)) checkParent(owner, current ?? null, parentId, rules);
  const name = rules.name("/name", input.name, 1, COLLECTION_LIMITS.name);
  const rawDescription = input.description === undefined ? current?.description ?? null : input.description;
  const description = rawDescription === null ? null : rules.text("/description", rawDescription, 0, COLLECTION_LIMITS.description) || null;
  const defaultIcon = current?.isDefault ? INBOX.icon : DEFAULT_ICON;
  const rawIcon = input.icon === undefined ? current?.icon ?? defaultIcon : input.icon;
  const icon = rawIcon.trim() === "" ? defaultIcon : rules.emoji("/icon", rawIcon);
  rules.check();
  return { name, description, visibility: input.visibility, icon, parentId, copiesPublic: input.copiesPublic ?? current?.copiesPublic ?? false };
}

/** refuseInbox: the Inbox cannot be deleted (links without a collection live there). */
function refuseInbox(collection: CollectionRow): void {
  if (collection.isDefault) throw new Conflict("DEFAULT_COLLECTION", "The Inbox collection cannot be deleted.");
}

/**
 * The collection summaries kept per database, one list per user, while the database's stamp
 * holds (src/db/etag-stamp.ts): any write drops them all. Thousands of collections cost milliseconds
 * to count and order on every page otherwise.
 */
const keptSummaries = new WeakMap<Db, StampedAnswers<readonly CollectionSummary[]>>();

export class ShelfCollections {
  constructor(private readonly owner: Owner, private readonly links: ShelfLinks) {}

  /** rows are the owner's collections as a tree (see treeOrder). */
  rows(): (CollectionRow & { depth: number })[] {
    return treeOrder(this.owner.db.select().from(collections).where(eq(collections.userId, this.owner.user.id)).all());
  }

  /**
   * summaries list the owner's collections as a tree (see treeOrder) with their link counts,
   * what every signed-in page's sidebar and pickers draw. Built with two queries (the
   * collections, and the counts grouped in one pass over the memberships' index: a count per
   * collection, asked row by row, cost twice as much), and kept, frozen, until anything in the
   * database changes (keptSummaries); each call gets an array of its own.
   */
  summaries(): CollectionSummary[] {
    const { db, user } = this.owner;
    let kept = keptSummaries.get(db);
    if (!kept) keptSummaries.set(db, kept = new StampedAnswers());
    return [...kept.get(readDatabaseStamp(db), user.id, () => {
      const counts = new Map(db.values<[number, number]>(sql`
        SELECT lc.collection_id, count(*) FROM ${linkCollections} lc
        WHERE lc.collection_id IN (SELECT id FROM ${collections} WHERE user_id = ${user.id}) GROUP BY lc.collection_id`));
      const rows = db.select().from(collections).where(eq(collections.userId, user.id)).all()
        .map((row) => ({ ...row, linkCount: counts.get(row.id) ?? 0 }));
      return Object.freeze(treeOrder(rows).map((summary) => Object.freeze(summary)));
    })];
  }

  /** summary is one of the owner's collections with its link count (another user's id: NotFound). */
  summary(id: number): CollectionSummary {
    const found = this.summaries().find((collection) => collection.id === id);
    if (!found) throw new NotFound();
    return found;
  }

  /** inboxId is the id of the owner's Inbox. */
  inboxId(): number {
    return inboxId(this.owner);
  }

  /** deletable is one of the owner's collections that may be deleted: the Inbox is a Conflict. */
  deletable(id: number): CollectionSummary {
    const found = this.summary(id);
    refuseInbox(found);
    return found;
  }

  /** get is one of the owner's collections with its links, newest first, and its order (another user's id: NotFound). */
  get(id: number): CollectionJson {
    return toCollectionJson(ownedCollection(this.owner, id), this.owner.user, this.links.inCollection(id), this.order(id));
  }

  /** order is the items of one of the owner's collections (another user's id: NotFound), or of the top level (null), in their order. */
  order(id: number | null): OrderItem[] {
    if (id !== null) ownedCollection(this.owner, id);
    return itemsOf(this.owner, id).map(({ kind, id }) => ({ kind, id }));
  }

  /**
   * setOrder puts a collection's items in the order given, which must name exactly its current
   * links and sub-collections, each once (otherwise ORDER_STALE: the client read an order that
   * has changed since). The collection's updatedAt moves.
   */
  setOrder(id: number, order: readonly OrderItem[], now: number): void {
    const { db } = this.owner;
    db.transaction(() => {
      ownedCollection(this.owner, id);
      if (!sameItems(order, itemsOf(this.owner, id))) {
        throw new Conflict("ORDER_STALE", "The order must name exactly the collection's current links and sub-collections, each once: read the collection again.");
      }
      writeOrder(this.owner, id, order);
      db.update(collections).set({ updatedAt: now }).where(eq(collections.id, id)).run();
    }, { behavior: "immediate" });
  }

  /**
   * shift moves an item of a collection (or a collection of the top level: null) past the
   * nearest item of its kind earlier (-1) or later (1) in its order, as the pages show a
   * collection's sub-collections apart from its links; at either end, or next to the Inbox,
   * nothing moves. An item that is not there is NotFound.
   */
  shift(parentId: number | null, item: OrderItem, by: -1 | 1, now: number): void {
    const { db } = this.owner;
    db.transaction(() => {
      if (parentId !== null) ownedCollection(this.owner, parentId);
      const items = itemsOf(this.owner, parentId);
      const at = items.findIndex((entry) => entry.kind === item.kind && entry.id === item.id);
      if (at === -1) throw new NotFound();
      let to = at + by;
      while (items[to] && items[to]!.kind !== item.kind) to += by;
      const other = items[to];
      if (!other || other.position === -Infinity || items[at]!.position === -Infinity) return;
      [items[at], items[to]] = [other, items[at]!];
      writeOrder(this.owner, parentId, items);
      if (parentId !== null) db.update(collections).set({ updatedAt: now }).where(eq(collections.id, parentId)).run();
    }, { behavior: "immediate" });
  }

  /** sortByName orders a collection's items (or the top level's: null) as a browser's "Sort by name" does: sub-collections first, each group by name ignoring case. */
  sortByName(parentId: number | null, now: number): void {
    const { db, user } = this.owner;
    db.transaction(() => {
      if (parentId !== null) ownedCollection(this.owner, parentId);
      const items = itemsOf(this.owner, parentId);
      const collectionNames = new Map(db.select({ id: collections.id, name: collections.name }).from(collections)
        .where(eq(collections.userId, user.id)).all().map((row) => [row.id, row.name]));
      const linkNames = new Map(parentId === null ? [] : db.select({ id: links.id, name: links.name }).from(links)
        .where(sql`${links.id} IN (SELECT link_id FROM link_collections WHERE collection_id = ${parentId})`).all().map((row) => [row.id, row.name]));
      const nameOf = (item: OrderItem) => ((item.kind === "link" ? linkNames : collectionNames).get(item.id) ?? "").toLowerCase();
      const fixed = items.filter((item) => item.position === -Infinity);
      const sorted = items.filter((item) => item.position !== -Infinity).sort((a, b) =>
        a.kind !== b.kind ? (a.kind === "collection" ? -1 : 1) : nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : a.id - b.id);
      writeOrder(this.owner, parentId, [...fixed, ...sorted]);
      if (parentId !== null) db.update(collections).set({ updatedAt: now }).where(eq(collections.id, parentId)).run();
    }, { behavior: "immediate" });
  }

  /**
   * memberships are every link of the owner in each of its collections, newest first (then by
   * collection). The rows are read as plain arrays and named by MEMBERSHIP_COLUMNS' order:
   * drizzle's per-row mapping cost more than the query itself at 10,000 links.
   */
  memberships(): Membership[] {
    const { db, user } = this.owner;
    const rows = db.values<unknown[]>(db.select(MEMBERSHIP_COLUMNS)
      .from(links)
      .innerJoin(linkCollections, eq(linkCollections.linkId, links.id))
      .leftJoin(linkCopies, eq(linkCopies.linkId, links.id))
      .where(eq(links.userId, user.id))
      .orderBy(desc(links.createdAt), desc(links.id), asc(linkCollections.collectionId)));
    return rows.map((values) => {
      const row: Record<string, unknown> = {};
      for (let at = 0; at < MEMBERSHIP_KEYS.length; at++) row[MEMBERSHIP_KEYS[at]!] = values[at];
      row.favorite = row.favorite === 1;
      row.toRead = row.toRead === 1;
      row.archived = row.archived === 1;
      return row as unknown as Membership;
    });
  }

  /**
   * listBody is the body of `GET /api/v1/collections`: all of the owner's collections with
   * their links (newest first), `{"collections":[...]}` encoded as UTF-8 once, so that it can
   * be kept and sent many times. Three queries, however many collections and links there are.
   * Each link is stringified once, on its own, then spliced into its collections; one
   * JSON.stringify over the whole nested list measured several times slower here. With
   * `kept`, the body kept there since the database last changed, when there is one.
   */
  listBody(kept?: KeptLists): Uint8Array {
    if (kept) return kept.of(this.owner, () => this.listBody());
    return atOnce(this.listSteps(this.rows()));
  }

  /**
   * listBodyInSlices is listBody built in slices of 20 ms, the server answering others between
   * them: its three queries run at once, in the caller's turn (one consistent reading), then the
   * answer is put together a slice at a time (100,000 memberships took 100-400 ms in one turn).
   */
  listBodyInSlices(kept: KeptLists): Promise<Uint8Array> {
    return kept.ofInSlices(this.owner, () => inSlices(this.listSteps(this.rows())));
  }

  /**
   * subtreeBody is the body of `GET /api/v1/collections?under=<id>`: listBody's answer with only
   * that collection of the owner's (another user's or unknown: NotFound) and its descendants,
   * depth first in their order, the collection first. Never kept: a sync client reads it once.
   */
  subtreeBody(under: number): Uint8Array {
    ownedCollection(this.owner, under);
    const rows = this.rows();
    const at = rows.findIndex((row) => row.id === under);
    let end = at + 1;
    while (end < rows.length && rows[end]!.depth > rows[at]!.depth) end++;
    return atOnce(this.listSteps(rows.slice(at, end)));
  }

  /**
   * listSteps builds the list's body of those collections (a whole tree, or a subtree), in the
   * order given, each with its links and its order: its queries in the first step, then steps of
   * a few thousand memberships or bytes' copies each.
   */
  private *listSteps(rows: readonly (CollectionRow & { depth: number })[]): Steps<Uint8Array> {
    const linkJsonById = new Map<number, LinkJson>();
    const linkIdsByCollection = new Map<number, number[]>();
    const placed = new Map<number, Placed[]>();
    const place = (parentId: number, item: Placed) => {
      const list = placed.get(parentId);
      if (list) list.push(item);
      else placed.set(parentId, [item]);
    };
    // The links once each (with their copy's summary), then their memberships as bare numbers
    // (newest link first): a link in 100 collections is read once, not 100 times.
    const { db, user } = this.owner;
    const linkRows = db.select({ link: links, copySavedAt: linkCopies.savedAt, copyBytes: linkCopies.bytes })
      .from(links).leftJoin(linkCopies, eq(linkCopies.linkId, links.id)).where(eq(links.userId, user.id)).all();
    for (const { link, copySavedAt, copyBytes } of linkRows) linkJsonById.set(link.id, toLinkJson(link, [], { copySavedAt, copyBytes }));
    const held = db.values<[number, number, number]>(sql`
      SELECT lc.link_id, lc.collection_id, lc.position FROM ${linkCollections} AS lc JOIN ${links} AS l ON l.id = lc.link_id
      WHERE l.user_id = ${user.id} ORDER BY l.created_at DESC, l.id DESC, lc.collection_id`);
    yield;
    for (const [at, [linkId, collectionId, position]] of held.entries()) {
      if (at % STEP_ROWS === STEP_ROWS - 1) yield;
      linkJsonById.get(linkId)!.collectionIds.push(collectionId);
      const ids = linkIdsByCollection.get(collectionId);
      if (ids) ids.push(linkId);
      else linkIdsByCollection.set(collectionId, [linkId]);
      place(collectionId, { kind: "link", id: linkId, position });
    }
    // Each link written once, as UTF-8, when a listed collection first holds it (a subtree lists few of them).
    const encoder = new TextEncoder();
    const linkBytes = new Map<number, Uint8Array>();
    const bytesOf = (id: number) => {
      let bytes = linkBytes.get(id);
      if (bytes === undefined) {
        const json = linkJsonById.get(id)!;
        json.collectionIds.sort((a, b) => a - b);
        bytes = encoder.encode(JSON.stringify(json));
        linkBytes.set(id, bytes);
      }
      return bytes;
    };
    for (const row of rows) if (row.parentId !== null) place(row.parentId, { kind: "collection", id: row.id, position: row.position });

    // The answer is put together from those bytes, copied once into one buffer: a link in 100
    // collections is encoded once, and no string of the whole answer is ever made (its pieces,
    // joined and encoded, took ~9 times the answer's size in memory).
    const comma = encoder.encode(",");
    const chunks: Uint8Array[] = [encoder.encode('{"collections":[')];
    for (const [index, row] of rows.entries()) {
      yield;
      if (index > 0) chunks.push(comma);
      const order = (placed.get(row.id) ?? []).sort(byPosition).map(({ kind, id }) => ({ kind, id }));
      const shell = JSON.stringify(toCollectionJson(row, this.owner.user, [], order));
      // The only unescaped `"links":[]` in the shell is the key itself: a quote inside a JSON string is always escaped.
      const at = shell.indexOf(EMPTY_LINKS) + EMPTY_LINKS.length - 1;
      chunks.push(encoder.encode(shell.slice(0, at)));
      for (const [nth, id] of (linkIdsByCollection.get(row.id) ?? []).entries()) {
        if (nth % STEP_ROWS === STEP_ROWS - 1) yield;
        if (nth > 0) chunks.push(comma);
        chunks.push(bytesOf(id));
      }
      chunks.push(encoder.encode(shell.slice(at)));
    }
    chunks.push(encoder.encode("]}"));
    const body = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0));
    let offset = 0;
    for (const [nth, chunk] of chunks.entries()) {
      if (nth % STEP_ROWS === STEP_ROWS - 1) yield;
      body.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return body;
  }

  /**
   * create makes an empty, non-default collection at the end of its parent's order (or the top
   * level's); an import passes its id, and the collection's last change as its file says (else it is `now`).
   */
  create(input: CollectionBody, now: number, importId: number | null = null, updatedAt = now): CollectionJson {
    const values = checkCollection(this.owner, input);
    const position = nextPosition(this.owner, values.parentId);
    const row = this.owner.db
      .insert(collections)
      .values({ ...values, position, userId: this.owner.user.id, isDefault: false, createdAt: now, updatedAt, importId })
      .returning()
      .all()[0]!;
    return toCollectionJson(row, this.owner.user, [], []);
  }

  /** update changes a collection's name, description, visibility, icon and parent; one that changes parent goes at the end of its new parent's order. */
  update(id: number, input: CollectionBody, now: number): void {
    const { db } = this.owner;
    db.transaction(() => {
      const current = ownedCollection(this.owner, id);
      const values = checkCollection(this.owner, input, current);
      const position = values.parentId === current.parentId ? current.position : nextPosition(this.owner, values.parentId);
      db.update(collections).set({ ...values, position, updatedAt: now }).where(eq(collections.id, id)).run();
    }, { behavior: "immediate" });
  }

  /**
   * delete deletes one of the owner's collections, never a link nor a sub-collection, in one
   * transaction (see discardCollection): plain, its sub-collections take its place and its lone
   * links go to the Inbox; `withContents`, it goes to the trash with its subtree and the links
   * only in it. The Inbox cannot be deleted.
   */
  delete(id: number, now: number, withContents = false): void {
    this.owner.db.transaction(() => {
      const row = ownedCollection(this.owner, id);
      refuseInbox(row);
      discardCollection(this.owner, row, now, withContents);
    }, { behavior: "immediate" });
  }

  /**
   * deleteEmptyImported deletes the owner's collections that an import created and that hold
   * no link and no sub-collection (inside the caller's transaction), deepest first, so that a
   * folder the import made only to hold others goes with them: each into the trash, as a
   * delete does; returns how many.
   */
  deleteEmptyImported(importId: number, now: number, sink?: TrashSink): number {
    let deleted = 0;
    for (;;) {
      const empty = this.owner.db.select().from(collections)
        .where(and(
          eq(collections.userId, this.owner.user.id), eq(collections.importId, importId), eq(collections.isDefault, false),
          sql`NOT EXISTS (SELECT 1 FROM ${linkCollections} WHERE ${linkCollections.collectionId} = ${collections.id})`,
          sql`NOT EXISTS (SELECT 1 FROM ${collections} AS child WHERE child.parent_id = ${collections.id})`,
        )).all();
      if (empty.length === 0) return deleted;
      for (const row of empty) discardCollection(this.owner, row, now, false, sink);
      deleted += empty.length;
    }
  }

  /**
   * deleteMany deletes those of `ids` that are the owner's collections for good, each as a plain
   * delete does but never into the trash (a failed import's own), in one transaction.
   */
  deleteMany(ids: readonly number[], now: number): void {
    const wanted = new Set(ids);
    const once = { ...this.owner, trashDays: 0 };
    this.owner.db.transaction(() => {
      for (const row of this.rows()) if (wanted.has(row.id) && !row.isDefault) discardCollection(once, row, now, false);
    }, { behavior: "immediate" });
  }
}

/** How many memberships, links or pieces of bytes one step of listSteps takes. */
const STEP_ROWS = 5000;

const EMPTY_LINKS = '"links":[]';
